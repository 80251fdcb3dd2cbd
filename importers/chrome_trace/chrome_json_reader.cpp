// readChromeJson: the importer's InputStream handed to the trace JSON tokenizer.
#include "importers/chrome_trace/chrome_json_reader.h"

#include "importers/chrome_trace/trace_json_tokenizer.h"

namespace ts::importers::chrome {
namespace {

class InputStreamSource : public ByteSource {
public:
    explicit InputStreamSource(InputStream& in) : m_in(in) {}
    size_t read(char* buf, size_t n) override { return m_in.read(buf, n); }
    uint64_t progress() const override { return m_in.fileOffset(); }
    std::string error() const override { return m_in.error(); }

private:
    InputStream& m_in;
};

}  // namespace

ReadOutcome readChromeJson(InputStream& in, JobControl& control,
                           const std::function<void(const ChromeEvent&)>& onEvent) {
    class CallbackSink : public EventSink {
    public:
        explicit CallbackSink(const std::function<void(const ChromeEvent&)>& f) : m_f(f) {}
        ChromeEvent& slot() override { return m_event; }
        void commit() override { m_f(m_event); }

    private:
        const std::function<void(const ChromeEvent&)>& m_f;
        ChromeEvent m_event;
    } sink(onEvent);
    return readChromeJson(in, control, sink);
}

ReadOutcome readChromeJson(InputStream& in, JobControl& control, EventSink& sink) {
    InputStreamSource source(in);
    return tokenizeChromeJson(source, control, sink);
}

}  // namespace ts::importers::chrome
