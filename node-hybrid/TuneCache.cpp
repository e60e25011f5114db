#include "node-hybrid/TuneCache.hpp"

#include "framework/AtomicFile.hpp"
#include "framework/Error.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace strata {

namespace {

// FNV-1a: a file name that is the same for the same key on every build.
std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

}  // namespace

std::string TuneCache::path_of(const std::string& key) const {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.share", static_cast<unsigned long long>(fnv1a(key)));
  return directory_ + "/" + name;
}

std::optional<TuneEntry> TuneCache::lookup(const std::string& key) const {
  if (directory_.empty()) return std::nullopt;
  if (const char* retune = std::getenv("STRATA_RETUNE"); retune && std::string(retune) == "1")
    return std::nullopt;
  const std::string path = path_of(key);
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string stored_key;
  TuneEntry entry;
  // The file is named by the key's 64-bit hash, so a file holding another
  // key or no numbers is damaged: measuring again overwrites it.
  const bool read = std::getline(in, stored_key) && stored_key == key && in >> entry.value >> entry.seconds_per_step;
  if (read && !(in >> entry.rows)) entry.rows = in.eof() ? 0 : -1;  // written without rows, or damaged
  if (!read || entry.value < 0 || entry.rows < 0 || !(entry.seconds_per_step >= 0.0)) {
    std::fprintf(stderr, "strata: warning: tune cache entry %s is damaged; ignoring it and measuring again\n",
                 path.c_str());
    return std::nullopt;
  }
  return entry;
}

void TuneCache::store(const std::string& key, const TuneEntry& entry) const {
  if (directory_.empty()) return;
  std::error_code error;
  std::filesystem::create_directories(directory_, error);
  std::ostringstream text;
  text << key << "\n" << entry.value << " " << entry.seconds_per_step << " " << entry.rows << "\n";
  try {
    write_file_atomically(path_of(key), text.str());
  } catch (const Error&) {
    // Best effort: an entry not cached only costs a retune later.
  }
}

}  // namespace strata
