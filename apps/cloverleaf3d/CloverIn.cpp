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

// Keys of the reference codes (kernels, tiling, profiler, OpenCL device):
// Strata tiles and times its own kernels, so they are accepted and have no
// effect. Flags stand alone; the others take a value.
const std::set<std::string> reference_only_flags = {
    "profiler_on",           "use_fortran_kernels",   "use_c_kernels",        "use_oa_kernels",
    "use_vector_loops",      "use_opencl_kernels",    "1d_tile_decomposition", "2d_tile_decomposition",
    "3d_tile_decomposition"};
const std::set<std::string> reference_only_valued = {"tiles_per_chunk", "tiles_per_problem", "opencl_vendor",
                                                     "opencl_type", "opencl_device"};

// Keys that take a whole number; the other scalar keys take a real.
const std::set<std::string> integer_keys = {"x_cells",  "y_cells",           "z_cells",        "end_step",
                                            "summary_frequency", "visit_frequency", "test_problem"};

const std::set<std::string> scalar_keys = {
    "x_cells",      "y_cells",      "z_cells",       "xmin",     "ymin",        "zmin",
    "xmax",         "ymax",         "zmax",          "end_time", "end_step",    "initial_timestep",
    "max_timestep", "timestep_rise", "summary_frequency", "visit_frequency", "test_problem"};

// Keys of the app's own section, under the same names.
const char* const app_scalar_keys[] = {"initial_timestep", "max_timestep", "timestep_rise", "test_problem"};

// Columns of a line the reference reads (its lines are read as (a150)).
constexpr std::size_t reference_columns = 150;

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
// (after '!' or ';') dropped, '=' and ',' and bytes other than printable
// ASCII (a byte order mark, a no-break space) separating like blanks.
std::vector<std::string> words(std::string line) {
  line = lower(line.substr(0, line.find_first_of("!;")));
  const auto separates = [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return c == '=' || c == ',' || byte < 32 || byte > 126;
  };
  std::replace_if(line.begin(), line.end(), separates, ' ');
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(with_e_exponent(w));
  return out;
}

// Whether `word` is a number (Fortran's D exponent already read as E), or a whole one.
bool is_number(const std::string& word) {
  static const std::regex real(R"([+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?)");
  return std::regex_match(word, real);
}
bool is_whole_number(const std::string& word) {
  static const std::regex integer(R"([+-]?\d+)");
  return std::regex_match(word, integer);
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
  io::TranslatedDeck done() const { return {yaml_.str(), io::DeckOrigin{lines_, {}, {}}}; }

 private:
  std::ostringstream yaml_;
  std::vector<int> lines_;
};

}  // namespace

bool is_clover_in(const std::string& text) {
  std::istringstream in(text);
  bool first = true;
  for (std::string line; std::getline(in, line);) {
    const std::vector<std::string> w = words(line);
    if (w.empty() || w[0][0] == '#') continue;  // a YAML comment
    if (w[0] == "*clover" || (first && w[0][0] == '*')) return true;
    first = false;
  }
  return false;
}

namespace {

// The lines of the *clover block as the reference reads them: a word '\'
// continues a line on the next, a nested *name ... *endname block is
// skipped, the end of the file ends the block as *endclover does. Each
// holds its words and its first line.
struct BlockLines {
  std::vector<std::pair<std::vector<std::string>, int>> lines;
  int begin = -1;
  std::vector<std::string> long_lines;  //!< numbers of lines that say more past the reference's columns
};

BlockLines block_lines(const std::string& text, const std::string& name) {
  std::vector<std::string> raw;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) raw.push_back(line);
  const auto at = [&](int line) { return name + ":" + std::to_string(line + 1) + ": "; };
  BlockLines block;
  std::string nested;  // the *name block being skipped
  int nested_line = -1;
  std::string stray;  // where the first '*' line before any *clover is
  // Line n's words, noting where the reference's columns would lose some.
  const auto words_of = [&](int n) {
    std::vector<std::string> w = words(raw[n]);
    if (block.begin >= 0 && nested.empty() && raw[n].size() > reference_columns &&
        words(raw[n].substr(0, reference_columns)) != w)
      block.long_lines.push_back(std::to_string(n + 1));
    return w;
  };
  const auto unclosed = [&](const std::string& where) {
    return InputError(at(nested_line) + nested + " has no *end" + nested.substr(1) + " " + where +
                      " (a *name line inside *clover opens a block that *endname closes)");
  };
  for (int n = 0; n < int(raw.size()); ++n) {
    const int first = n;
    std::vector<std::string> w = words_of(n);
    while (!w.empty() && w.back() == "\\" && n + 1 < int(raw.size())) {
      w.pop_back();
      const std::vector<std::string> more = words_of(++n);
      w.insert(w.end(), more.begin(), more.end());
    }
    if (!w.empty() && w.back() == "\\") w.pop_back();  // on the last line
    if (w.empty()) continue;
    if (block.begin < 0) {  // text before the block is ignored
      if (w[0] == "*clover") block.begin = first;
      else if (w[0][0] == '*' && stray.empty()) stray = at(first) + w[0];
      continue;
    }
    if (w[0] == "*endclover") {
      if (!nested.empty()) throw unclosed("before *endclover at line " + std::to_string(first + 1));
      break;
    }
    if (!nested.empty()) {
      if (w[0] == "*end" + nested.substr(1)) nested.clear();
      continue;
    }
    if (w[0] == "*clover") throw InputError(at(first) + "a second *clover before *endclover");
    if (w[0][0] == '*') {
      if (io::closest_match(w[0], {"*endclover"}) == "*endclover")
        throw InputError(at(first) + "unknown line '" + w[0] + "' (did you mean '*endclover'?)");
      nested = w[0];
      nested_line = first;
      continue;
    }
    block.lines.emplace_back(std::move(w), first);
  }
  if (block.begin < 0)
    throw InputError((stray.empty() ? name + ":1" : stray) +
                     ": no *clover line: a clover.in deck's keys sit between *clover and *endclover");
  if (!nested.empty()) throw unclosed("before the end of the file");
  return block;
}

}  // namespace

io::TranslatedDeck translate_clover_in(const std::string& text, const std::string& name) {
  const auto fail = [&](int line, const std::string& message) {
    throw InputError(name + ":" + std::to_string(line + 1) + ": " + message);
  };
  const BlockLines block = block_lines(text, name);
  const int begin = block.begin;
  std::map<std::string, Entry> values;
  std::map<int, Entry> states;  // state number -> its key=value pairs as a YAML flow map
  const auto is_key = [](const std::string& word) {
    return scalar_keys.count(word) || reference_only_flags.count(word) || reference_only_valued.count(word);
  };
  const auto unknown = [&](int n, const std::string& word) {
    std::set<std::string> known = scalar_keys;
    known.insert(reference_only_flags.begin(), reference_only_flags.end());
    known.insert(reference_only_valued.begin(), reference_only_valued.end());
    known.insert("state");
    std::string message = "unknown key '" + word + "'";
    const std::string suggestion = io::closest_match(word, known);
    if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
    fail(n, message);
  };
  for (const auto& [w, n] : block.lines) {
    if (w[0] == "state") {
      if (w.size() < 2 || w[1].find_first_not_of("0123456789") != std::string::npos)
        fail(n, "state: expected a state number after 'state'");
      if (w[1].size() > 6) fail(n, "state " + w[1] + ": too large a state number (states are numbered 1, 2, ...)");
      const int id = std::stoi(w[1]);
      if (id < 1) fail(n, "state: numbers start at 1");
      for (std::size_t i = 2; i < w.size(); i += 2) {
        if (w[i].find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos)
          fail(n, "state " + w[1] + ": '" + w[i] + "' is not a key (a key and its value are separated by '=' or "
                  "blanks)");
        if (i + 1 == w.size() || w[i + 1] == "state") fail(n, "state " + w[1] + ": '" + w[i] + "' has no value");
      }
      std::string map = "{";
      for (std::size_t i = 2; i + 1 < w.size(); i += 2)
        map += (i > 2 ? ", " : "") + w[i] + ": " + quoted(w[i + 1]);
      const auto [it, inserted] = states.emplace(id, Entry{map + "}", n});
      if (!inserted)
        fail(n, "state " + w[1] + " defined twice (first at line " + std::to_string(it->second.line + 1) + ")");
      continue;
    }
    // A line may give several keys (x_cells=10 y_cells=10), each followed by its value.
    for (std::size_t i = 0; i < w.size();) {
      const std::string& word = w[i];
      if (word == "state") fail(n, "'state' begins a line of its own (its keys follow it on that line)");
      if (!is_key(word)) {
        if (i > 0 && !reference_only_flags.count(w[i - 1]))
          fail(n, w[i - 2] + ": expected one value, got '" + w[i - 1] + " " + word + "'");
        unknown(n, word);
      }
      const bool valued = i + 1 < w.size() && !is_key(w[i + 1]);
      if (reference_only_flags.count(word)) {  // a number after one is a value the reference ignores too
        i += valued && is_number(w[i + 1]) ? 2 : 1;
        continue;
      }
      if (!valued) fail(n, word + ": expected one value, got none");
      if (reference_only_valued.count(word)) {
        i += 2;
        continue;
      }
      const bool whole = integer_keys.count(word) > 0;
      if (!(whole ? is_whole_number(w[i + 1]) : is_number(w[i + 1])))
        fail(n, word + ": expected " + (whole ? "a whole number" : "a number") + ", got '" + w[i + 1] + "'");
      const auto [it, inserted] = values.emplace(word, Entry{w[i + 1], n});
      if (!inserted) fail(n, word + " given twice (first at line " + std::to_string(it->second.line + 1) + ")");
      i += 2;
    }
  }
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
  for (const char* key : app_scalar_keys)
    if (values.count(key)) out.line(2, std::string(key) + ": " + quoted(values[key].value), values[key].line);
  io::TranslatedDeck deck = out.done();
  deck.origin.key_names = {{"grid.cells", "x_cells, y_cells, z_cells"}, {"grid.domain.lo", "xmin, ymin, zmin"},
                           {"grid.domain.hi", "xmax, ymax, zmax"},      {"time.steps", "end_step"},
                           {"time.end_time", "end_time"},               {"output.report_every", "summary_frequency"},
                           {"output.write_every", "visit_frequency"}};
  for (const char* key : app_scalar_keys)
    deck.origin.key_names.emplace("cloverleaf3d." + std::string(key), key);
  for (const auto& [id, entry] : states)
    deck.origin.key_names.emplace("cloverleaf3d.states." + std::to_string(id), "state " + std::to_string(id));
  if (!block.long_lines.empty()) {
    std::string lines;
    for (const std::string& l : block.long_lines) lines += (lines.empty() ? "" : ", ") + l;
    deck.origin.warnings.push_back(name + ": line(s) " + lines + " say more past column " +
                                   std::to_string(reference_columns) +
                                   ": Strata reads whole lines, the reference CloverLeaf only the first " +
                                   std::to_string(reference_columns) + " columns: the two run this file differently");
  }
  return deck;
}

io::DeckFormat clover_in_format() { return {is_clover_in, translate_clover_in}; }

}  // namespace strata::cloverleaf
