#include "tests/common/test_support.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ts::test {
namespace fs = std::filesystem;

fs::path corpusDir() {
    const char* env = std::getenv("TRAINSCOPE_CORPUS");
    fs::path p = env ? fs::path(env) : fs::path(TS_DEFAULT_CORPUS);
    std::error_code ec;
    if (!fs::is_directory(p, ec)) return {};
    return fs::canonical(p, ec);
}

fs::path corpusFile(const std::string& rel) {
    return corpusDir() / rel;
}

fs::path tempDir(const std::string& tag) {
    static std::vector<fs::path> made;
    struct Cleaner {
        ~Cleaner() {
            std::error_code ec;
            for (auto& p : made) fs::remove_all(p, ec);
        }
    };
    static Cleaner cleaner;
    std::string templ = (fs::temp_directory_path() / ("trainscope-" + tag + "-XXXXXX")).string();
    char* dir = ::mkdtemp(templ.data());
    fs::path p = dir ? fs::path(dir) : fs::path(templ);
    made.push_back(p);
    return p;
}

std::string cliPath() {
    const char* env = std::getenv("TRAINSCOPE_CLI");
    return env ? env : TS_DEFAULT_CLI;
}

CommandResult runCli(const std::vector<std::string>& args) {
    return runProgram(cliPath(), args);
}

CommandResult runProgram(const std::string& exe, const std::vector<std::string>& args,
                         const std::vector<std::string>& unset) {
    CommandResult r;
    const fs::path dir = tempDir("cli");
    const std::string outPath = (dir / "out").string(), errPath = (dir / "err").string();
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int o = ::open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int e = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ::dup2(o, 1);
        ::dup2(e, 2);
        for (const std::string& name : unset) ::unsetenv(name.c_str());
        std::vector<std::string> full{exe};
        full.insert(full.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (auto& a : full) argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::ifstream o(outPath), e(errPath);
    std::stringstream so, se;
    so << o.rdbuf();
    se << e.rdbuf();
    r.out = so.str();
    r.err = se.str();
    return r;
}

bool processRunning(int pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pidText, comm, state;
    if (!(stat >> pidText >> comm >> state)) return false;
    return state != "Z" && state != "X";
}

}  // namespace ts::test
