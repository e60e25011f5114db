#include "node-hybrid/TuneCache.hpp"

#include "framework/AtomicFile.hpp"
#include "framework/Error.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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

bool retune_forced() {
  const char* retune = std::getenv("STRATA_RETUNE");
  return retune && *retune && std::string(retune) != "0";  // set, and not to 0
}

void warn_ignored(const std::string& path, const char* why) {
  std::fprintf(stderr, "strata: warning: tune cache entry %s %s; ignoring it and measuring again\n", path.c_str(),
               why);
}

bool write_failed = false;  // by any cache of this process

// Best effort: an entry not cached only costs a retune later, which the
// process says once (a run's report would otherwise claim what is kept).
void write_entry(const std::string& directory, const std::string& path, const std::string& text) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  try {
    write_file_atomically(path, text);
  } catch (const Error& e) {
    if (!write_failed)
      std::fprintf(stderr, "strata: warning: the tune cache %s cannot be written (%s); what is tuned is not kept\n",
                   directory.c_str(), e.what());
    write_failed = true;
  }
}

// The answer stored in `path` for `key`; none where there is no file, and
// `damaged` where the file holds no answer for it: the file is named by
// the key's 64-bit hash, so one holding another key or no numbers is
// damaged, and measuring again overwrites it.
std::optional<TuneEntry> read_entry(const std::string& path, const std::string& key, bool& damaged) {
  damaged = false;
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string stored_key;
  TuneEntry entry;
  const bool read = std::getline(in, stored_key) && stored_key == key && in >> entry.value >> entry.seconds_per_step;
  if (read && !(in >> entry.rows)) entry.rows = in.eof() ? 0 : -1;  // written without rows, or damaged
  damaged = !read || entry.value < 0 || entry.rows < 0 || !(entry.seconds_per_step >= 0.0);
  return damaged ? std::nullopt : std::optional<TuneEntry>(entry);
}

}  // namespace

std::string TuneCache::path_of(const std::string& key, const char* extension) const {
  char name[48];
  std::snprintf(name, sizeof name, "%016llx.%s", static_cast<unsigned long long>(fnv1a(key)), extension);
  return directory_ + "/" + name;
}

std::optional<TuneEntry> TuneCache::lookup(const std::string& key,
                                           const std::function<bool(const TuneEntry&)>& fits) const {
  if (!enabled() || retune_forced()) return std::nullopt;
  bool damaged = false;
  const std::optional<TuneEntry> entry = read_entry(path_of(key), key, damaged);
  if (damaged) warn_ignored(path_of(key), "is damaged");
  if (entry && fits && !fits(*entry)) {
    warn_ignored(path_of(key), ("holds a choice this run cannot make (" + std::to_string(entry->value) + ")").c_str());
    return std::nullopt;
  }
  return entry;
}

void TuneCache::store(const std::string& key, const TuneEntry& entry) const {
  if (!enabled()) return;
  std::ostringstream text;
  text << key << "\n" << entry.value << " " << entry.seconds_per_step << " " << entry.rows << "\n";
  write_entry(directory_, path_of(key), text.str());
  std::error_code error;
  std::filesystem::remove(path_of(key, "progress"), error);
}

std::vector<double> TuneCache::lookup_progress(const std::string& key) const {
  if (!enabled() || retune_forced()) return {};
  const std::string path = path_of(key, "progress");
  std::ifstream in(path);
  if (!in) return {};
  std::string stored_key;
  std::size_t count = 0;
  std::vector<double> measurements;
  if (std::getline(in, stored_key) && stored_key == key && in >> count && count < 100000) {
    measurements.resize(count);
    for (double& m : measurements) in >> m;
  }
  if (!in || measurements.empty()) {
    warn_ignored(path, "is damaged");
    return {};
  }
  return measurements;
}

void TuneCache::store_progress(const std::string& key, const std::vector<double>& measurements) const {
  // Ranks of one box share its key: one still tuning must not bring back
  // the progress another's answer removed (a damaged entry is no answer).
  bool damaged = false;
  if (!enabled() || read_entry(path_of(key), key, damaged)) return;
  std::ostringstream text;
  text.precision(17);
  text << key << "\n" << measurements.size();
  for (double m : measurements) text << " " << m;
  text << "\n";
  write_entry(directory_, path_of(key, "progress"), text.str());
}

bool TuneCache::writes_kept() { return !write_failed; }

}  // namespace strata
