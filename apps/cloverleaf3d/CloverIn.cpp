#include "apps/cloverleaf3d/CloverIn.hpp"

#include "framework/Error.hpp"
#include "io/Deck.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace strata::cloverleaf {

namespace {

// A value of the block and the line it came from.
struct Entry {
  std::string value;
  int line = -1;
};

// Keys that select the reference code's kernels, tiling or profiler: Strata
// tiles and times its own kernels, so they are accepted and have no effect.
const std::set<std::string> reference_only_keys = {
    "tiles_per_chunk",       "tiles_per_problem",     "profiler_on",          "use_fortran_kernels",
    "use_c_kernels",         "use_oa_kernels",        "use_vector_loops",     "1d_tile_decomposition",
    "2d_tile_decomposition", "3d_tile_decomposition"};

const std::set<std::string> scalar_keys = {
    "x_cells",      "y_cells",      "z_cells",       "xmin",     "ymin",        "zmin",
    "xmax",         "ymax",         "zmax",          "end_time", "end_step",    "initial_timestep",
    "max_timestep", "timestep_rise", "summary_frequency", "visit_frequency", "test_problem"};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

// A Fortran double-precision literal (4.0d-2) as C reads it (4.0e-2).
std::string with_e_exponent(std::string word) {
  static const std::regex fortran_double(R"([+-]?(\d+\.?\d*|\.\d+)d[+-]?\d+)");
  if (std::regex_match(word, fortran_double)) word[word.find('d')] = 'e';
  return word;
}

// Words of a line as the reference's parser reads them: lower case, comments
// (after '!' or ';') dropped, '=' and ',' separating like blanks.
std::vector<std::string> words(std::string line) {
  line = lower(line.substr(0, line.find_first_of("!;")));
  std::replace_if(line.begin(), line.end(), [](char c) { return c == '=' || c == ','; }, ' ');
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(with_e_exponent(w));
  return out;
}

// A YAML scalar holding `raw` exactly; the deck reader checks its type.
std::string quoted(const std::string& raw) {
  std::string out = "'";
  for (char c : raw) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

class Writer {
 public:
  void line(int indent, const std::string& text, int source) {
    yaml_ << std::string(indent, ' ') << text << "\n";
    lines_.push_back(source);
  }
  io::TranslatedDeck done() const { return {yaml_.str(), lines_}; }

 private:
  std::ostringstream yaml_;
  std::vector<int> lines_;
};

}  // namespace

bool is_clover_in(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const std::vector<std::string> w = words(line);
    if (!w.empty() && lower(w[0]) == "*clover") return true;
  }
  return false;
}

io::TranslatedDeck translate_clover_in(const std::string& text, const std::string& name) {
  const auto fail = [&](int line, const std::string& message) {
    throw InputError(name + ":" + std::to_string(line + 1) + ": " + message);
  };
  std::map<std::string, Entry> values;
  std::map<int, Entry> states;  // state number -> its key=value pairs as a YAML flow map
  int begin = -1, end = -1, last = 0;
  std::istringstream in(text);
  int n = 0;
  for (std::string raw; std::getline(in, raw); ++n) {
    last = n;
    const std::vector<std::string> w = words(raw);
    if (w.empty()) continue;
    const std::string key = lower(w[0]);
    if (begin < 0) {
      if (key == "*clover") begin = n;
      continue;
    }
    if (key == "*endclover") {
      end = n;
      break;
    }
    if (key == "*clover") fail(n, "a second *clover before *endclover");
    if (key == "state") {
      if (w.size() < 2 || w[1].find_first_not_of("0123456789") != std::string::npos)
        fail(n, "state: expected a state number after 'state'");
      if (w[1].size() > 6) fail(n, "state " + w[1] + ": too large a state number (states are numbered 1, 2, ...)");
      const int id = std::stoi(w[1]);
      if (id < 1) fail(n, "state: numbers start at 1");
      if ((w.size() - 2) % 2 != 0) fail(n, "state " + w[1] + ": '" + w.back() + "' has no value");
      std::string map = "{";
      for (std::size_t i = 2; i + 1 < w.size(); i += 2)
        map += (i > 2 ? ", " : "") + lower(w[i]) + ": " + quoted(w[i + 1]);
      const auto [it, inserted] = states.emplace(id, Entry{map + "}", n});
      if (!inserted)
        fail(n, "state " + w[1] + " defined twice (first at line " + std::to_string(it->second.line + 1) + ")");
      continue;
    }
    // A line may give several keys (x_cells=10 y_cells=10), each followed by its value.
    const auto is_key = [](const std::string& word) {
      return scalar_keys.count(word) || reference_only_keys.count(word);
    };
    for (std::size_t i = 0; i < w.size();) {
      const std::string& word = w[i];
      if (!is_key(word)) {
        if (i > 0) fail(n, w[i - 2] + ": expected one value, got '" + w[i - 1] + " " + word + "'");
        std::set<std::string> known = scalar_keys;
        known.insert(reference_only_keys.begin(), reference_only_keys.end());
        known.insert("state");
        std::string message = "unknown key '" + word + "'";
        const std::string suggestion = io::closest_match(word, known);
        if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
        fail(n, message);
      }
      const bool valued = i + 1 < w.size() && !is_key(w[i + 1]);
      if (reference_only_keys.count(word)) {  // read by the reference only: value or not, no effect here
        i += valued ? 2 : 1;
        continue;
      }
      if (!valued) fail(n, word + ": expected one value, got none");
      const auto [it, inserted] = values.emplace(word, Entry{w[i + 1], n});
      if (!inserted) fail(n, word + " given twice (first at line " + std::to_string(it->second.line + 1) + ")");
      i += 2;
    }
  }
  if (begin < 0) fail(0, "no *clover block");
  if (end < 0) fail(last, "*clover block has no *endclover");
  if (states.empty()) fail(begin, "no states defined (a 'state 1 density=... energy=...' line is required)");
  for (int id = 1; id <= states.rbegin()->first; ++id)
    if (!states.count(id)) fail(states.rbegin()->second.line, "state " + std::to_string(id) + " is missing");

  // The reference code's defaults for keys the block leaves out.
  const auto value = [&](const std::string& key, const std::string& fallback) {
    const auto it = values.find(key);
    return it != values.end() ? it->second : Entry{fallback, begin};
  };
  Writer out;
  out.line(0, "app: cloverleaf3d", begin);
  out.line(0, "grid:", begin);
  // A triple's errors name the first line that gives one of its values.
  const auto triple = [&](int indent, const std::string& key, const char* x, const char* y,
                          const char* z, const std::string& fallback) {
    const Entry ex = value(x, fallback), ey = value(y, fallback), ez = value(z, fallback);
    int first = -1;
    for (const char* given : {x, y, z})
      if (values.count(given)) first = first < 0 ? values[given].line : std::min(first, values[given].line);
    out.line(indent, key + ":", first < 0 ? begin : first);
    for (const Entry& e : {ex, ey, ez}) out.line(indent + 2, "- " + quoted(e.value), e.line);
  };
  triple(2, "cells", "x_cells", "y_cells", "z_cells", "10");
  out.line(2, "domain:", begin);
  triple(4, "lo", "xmin", "ymin", "zmin", "0.0");
  triple(4, "hi", "xmax", "ymax", "zmax", "100.0");
  out.line(0, "time:", begin);
  if (values.count("end_step")) out.line(2, "steps: " + quoted(values["end_step"].value), values["end_step"].line);
  const Entry end_time = value("end_time", "10.0");
  out.line(2, "end_time: " + quoted(end_time.value), end_time.line);
  out.line(0, "output:", begin);
  const Entry summary = value("summary_frequency", "10");
  out.line(2, "report_every: " + quoted(summary.value), summary.line);
  const Entry visit = value("visit_frequency", "0");
  out.line(2, "write_every: " + quoted(visit.value), visit.line);
  out.line(0, "cloverleaf3d:", begin);
  out.line(2, "states:", states.begin()->second.line);
  for (const auto& [id, entry] : states) out.line(4, "'" + std::to_string(id) + "': " + entry.value, entry.line);
  for (const char* key : {"initial_timestep", "max_timestep", "timestep_rise", "test_problem"})
    if (values.count(key)) out.line(2, std::string(key) + ": " + quoted(values[key].value), values[key].line);
  return out.done();
}

io::DeckFormat clover_in_format() { return {is_clover_in, translate_clover_in}; }

}  // namespace strata::cloverleaf
