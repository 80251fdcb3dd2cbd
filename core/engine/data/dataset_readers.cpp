// Dataset sources on disk: IDX (MNIST / Fashion-MNIST, gzipped or not) and CSV.

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/common/file_io.h"
#include "core/engine/data/dataset.h"
#include "core/log/logger.h"

namespace ts::engine {

namespace {

uint32_t be32(const std::string& d, size_t off) {
    return (static_cast<uint32_t>(static_cast<uint8_t>(d[off])) << 24) |
           (static_cast<uint32_t>(static_cast<uint8_t>(d[off + 1])) << 16) |
           (static_cast<uint32_t>(static_cast<uint8_t>(d[off + 2])) << 8) |
           static_cast<uint8_t>(d[off + 3]);
}

}  // namespace

Result<ArrayDataset> readIdx(const std::string& imagesPath, const std::string& labelsPath) {
    auto img = readMaybeGzipped(imagesPath);
    if (!img) return Error{img.error()};
    auto lab = readMaybeGzipped(labelsPath);
    if (!lab) return Error{lab.error()};
    const std::string& I = img.value();
    const std::string& L = lab.value();
    if (I.size() < 16 || be32(I, 0) != 0x00000803)
        return Error{imagesPath + ": not an IDX image file (magic 0x00000803 expected)"};
    if (L.size() < 8 || be32(L, 0) != 0x00000801)
        return Error{labelsPath + ": not an IDX label file (magic 0x00000801 expected)"};
    const int64_t n = be32(I, 4), rows = be32(I, 8), cols = be32(I, 12), nl = be32(L, 4);
    if (static_cast<int64_t>(I.size()) - 16 != n * rows * cols)
        return Error{imagesPath + ": header says " + std::to_string(n) + " images of " +
                     std::to_string(rows) + "x" + std::to_string(cols) + " but the file holds " +
                     std::to_string(I.size() - 16) + " pixel bytes"};
    if (static_cast<int64_t>(L.size()) - 8 != nl)
        return Error{labelsPath + ": header says " + std::to_string(nl) +
                     " labels but the file holds " + std::to_string(L.size() - 8)};
    if (nl != n)
        return Error{"images and labels disagree on the dataset length: " + std::to_string(n) +
                     " images, " + std::to_string(nl) + " labels"};
    Tensor images = Tensor::empty({n, 1, rows, cols}, DType::UInt8);
    std::memcpy(images.raw(), I.data() + 16, images.nbytes());
    Tensor labels = Tensor::empty({n}, DType::UInt8);
    std::memcpy(labels.raw(), L.data() + 8, labels.nbytes());
    return ArrayDataset::create({"image", "label"}, {images, labels});
}

std::string fashionMnistDir() {
    for (const char* d : {"/usr/share/datasets/fashion-mnist", "/usr/share/dataset-fashion-mnist"})
        if (std::filesystem::exists(std::string(d) + "/train-images-idx3-ubyte.gz")) return d;
    return {};
}

Result<ArrayDataset> loadFashionMnist(const std::string& split, const std::string& dirIn) {
    const std::string dir = dirIn.empty() ? fashionMnistDir() : dirIn;
    if (dir.empty())
        return Error{
            "Fashion-MNIST not found: install the Debian package dataset-fashion-mnist "
            "(files in /usr/share/datasets/fashion-mnist)"};
    const std::string prefix = split == "test" ? "t10k" : "train";
    if (split != "train" && split != "test")
        return Error{"unknown split '" + split + "' (train or test)"};
    auto ds = readIdx(dir + "/" + prefix + "-images-idx3-ubyte.gz",
                      dir + "/" + prefix + "-labels-idx1-ubyte.gz");
    if (ds)
        TS_LOG(DATASET, INFO) << "Fashion-MNIST " << split << ": " << ds->size() << " samples from "
                              << dir;
    else
        TS_LOG(DATASET, ERROR) << ds.error();
    return ds;
}

Result<ArrayDataset> readCsv(const std::string& path, const std::string& labelColumn) {
    std::ifstream in(path);
    if (!in) return Error{"cannot open " + path};
    std::string line;
    if (!std::getline(in, line)) return Error{path + ": empty file"};
    std::vector<std::string> header;
    {
        std::stringstream ss(line);
        std::string cell;
        while (std::getline(ss, cell, ',')) header.push_back(cell);
    }
    int labelIdx = -1;
    for (size_t i = 0; i < header.size(); ++i)
        if (header[i] == labelColumn) labelIdx = static_cast<int>(i);
    if (labelIdx < 0) return Error{path + ": no column named '" + labelColumn + "'"};
    std::vector<float> feats;
    std::vector<int32_t> labels;
    int64_t lineNo = 1;
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.empty()) continue;
        std::vector<std::string> cells;
        std::stringstream ss(line);
        std::string cell;
        while (std::getline(ss, cell, ',')) cells.push_back(cell);
        if (cells.size() != header.size())
            return Error{path + ":" + std::to_string(lineNo) + ": " + std::to_string(cells.size()) +
                         " values but the header names " + std::to_string(header.size()) +
                         " columns"};
        for (size_t i = 0; i < cells.size(); ++i) {
            char* end = nullptr;
            const double v = std::strtod(cells[i].c_str(), &end);
            if (end == cells[i].c_str())
                return Error{path + ":" + std::to_string(lineNo) + ": '" + cells[i] +
                             "' in column '" + header[i] + "' is not a number"};
            if (static_cast<int>(i) == labelIdx)
                labels.push_back(static_cast<int32_t>(v));
            else
                feats.push_back(static_cast<float>(v));
        }
    }
    const int64_t n = static_cast<int64_t>(labels.size());
    const int64_t f = static_cast<int64_t>(header.size()) - 1;
    Tensor ft = Tensor::empty({n, f});
    if (!feats.empty()) std::memcpy(ft.raw(), feats.data(), ft.nbytes());
    Tensor lt = Tensor::empty({n}, DType::Int32);
    if (!labels.empty()) std::memcpy(lt.raw(), labels.data(), lt.nbytes());
    return ArrayDataset::create({"features", "label"}, {ft, lt});
}

}  // namespace ts::engine
