#pragma once
//! \file TiledSteps.hpp
//! What the time-tiling benchmarks share: the state of a StepUpdate on one
//! partition whose six faces are walls, stepped either untiled (wall fill,
//! then one sweep per step, as HybridDomain's untiled path does on a single
//! rank; on the host's space or the device's) or in tiled cycles of k steps
//! on the host (run_tiled_cycle, whose tiles mirror the walls of the planes
//! they write, so only a cycle after the state was set or swept untiled
//! fills walls first, as HybridDomain::advance does); a checksum of the
//! state so that every tiled depth is checked against the untiled steps
//! before it is timed; the search for k and the tile a run makes
//! (node-hybrid/TilingTuner.hpp); and the `--tile X,Y` option.

#include "framework/Box.hpp"
#include "framework/ExecutionSpaces.hpp"
#include "framework/Field.hpp"
#include "framework/ForEachCell.hpp"
#include "framework/HostTileShape.hpp"
#include "framework/MachineModel.hpp"
#include "framework/MixBits.hpp"
#include "framework/Region.hpp"
#include "framework/StepUpdate.hpp"
#include "framework/TiledKernel.hpp"
#include "framework/Timers.hpp"
#include "halo/WallGhosts.hpp"
#include "node-hybrid/TilingTuner.hpp"

#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace strata::bench {

using HostExec = Kokkos::DefaultHostExecutionSpace;
using HostField = Field<HostExec::memory_space>;

//! The tiled depths every benchmark row set measures, and the deepest.
constexpr std::array<int, 4> tiled_depths{1, 2, 4, 8};
constexpr int deepest_tiled_depth = 8;

//! Removes `--tile X,Y` (or `--tile=X,Y`) from the command line and returns
//! the tile; exits with a message when the value is not two integers >= 1.
inline std::optional<TileShape> take_tile_option(int& argc, char* argv[]) {
  std::optional<TileShape> tile;
  int kept = 1;
  for (int a = 1; a < argc; ++a) {
    const char* value = nullptr;
    if (std::strcmp(argv[a], "--tile") == 0) {
      value = a + 1 < argc ? argv[++a] : "";
    } else if (std::strncmp(argv[a], "--tile=", 7) == 0) {
      value = argv[a] + 7;
    } else {
      argv[kept++] = argv[a];
      continue;
    }
    int x = 0, y = 0;
    char rest = 0;
    if (std::sscanf(value, "%d,%d%c", &x, &y, &rest) != 2 || x < 1 || y < 1) {
      std::fprintf(stderr, "%s: --tile expects X,Y (cells of a tile along x and y, each >= 1), got '%s'\n",
                   argv[0], value);
      std::exit(2);
    }
    tile = TileShape{x, y};
  }
  argc = kept;
  argv[argc] = nullptr;
  return tile;
}

//! "128x16" for a row label.
inline std::string tile_text(const TileShape& t) { return std::to_string(t[0]) + "x" + std::to_string(t[1]); }

//! The state of `Update` (its `fields` fields, and as many for the next
//! state) on `owned` with `ghosts` layers, every face a wall, in the memory
//! of `Exec`, which steps it untiled; tiled cycles and the checksum are the
//! host's (Exec the host's space).
template <class Update, class Exec = HostExec>
class WalledState {
 public:
  static constexpr int N = Update::fields;
  using StateField = Field<typename Exec::memory_space>;
  using Fields = std::array<StateField, N>;

  WalledState(const Box& owned, int ghosts, const std::array<WallCondition, N>& walls) : owned_(owned) {
    for (int f = 0; f < N; ++f) {
      state_[f] = StateField("state" + std::to_string(f), owned, ghosts);
      next_[f] = StateField("next" + std::to_string(f), owned, ghosts);
      conditions_[f] = {walls[f], walls[f], walls[f]};
      for (int a = 0; a < 3; ++a) mirror_[f][a] = mirror_of(walls[f]);
    }
  }

  const Box& owned() const { return owned_; }

  //! Sets every owned cell of the state: `value(f, i, j, k)`, a host
  //! function (made on the host; copied where the state is not host memory).
  template <class Value>
  void set(const Value& value) {
    constexpr bool on_host = std::is_same_v<StateField, HostField>;
    for (int f = 0; f < N; ++f) {
      HostField made;
      if constexpr (on_host) made = state_[f];
      else made = HostField("made", owned_, state_[f].ghosts());
      const CellArray<double> u = made.cells();
      for_each_cell("bench::set", HostExec(), owned_, [=](int i, int j, int k) { u(i, j, k) = value(f, i, j, k); });
      HostExec().fence();
      if constexpr (!on_host) Kokkos::deep_copy(state_[f].view(), made.view());
    }
    walls_fresh_ = false;
  }

  //! One untiled step: the walls (depth reach), then one sweep.
  void untiled_step(const Update& update) {
    fill_walls();
    sweep(update);
  }

  //! One sweep of the update over the owned cells, walls left as they are.
  void sweep(const Update& update) {
    for_each_cell("bench::step", Exec(), owned_, StepKernel<Update>{update, in(), out()});
    std::swap(state_, next_);
    walls_fresh_ = false;
  }

  //! The tiled cycle of `steps` steps with `tile`.
  TiledCycle<N> cycle(int steps, const TileShape& tile) const {
    TiledCycle<N> c;
    c.levels = steps;
    c.reach = Update::reach;
    c.owned = owned_;
    c.walls = all_faces();
    for (int f = 0; f < N; ++f)
      for (int a = 0; a < 3; ++a) c.mirror[f][a] = mirror_[f][a];
    c.tile = {std::min(tile[0], owned_.extent(X)), std::min(tile[1], owned_.extent(Y))};
    return c;
  }

  //! One tiled cycle: the walls of level 0 (depth reach) unless the
  //! previous cycle's tiles mirrored them, then the tiles.
  void tiled_cycle(const Update& update, const TiledCycle<N>& c) {
    static_assert(runs_on_host<Exec>, "tiled cycles are the host's");
    if (!walls_fresh_) fill_walls();
    run_tiled_cycle(HostExec(), update, in(), out(), c);
    HostExec().fence();
    std::swap(state_, next_);
    walls_fresh_ = true;
  }

  //! Sum mod 2^64 of a hash of (value bits, field, cell) over the owned
  //! cells: equal for two states that are equal bit for bit, and (but for
  //! a 2^-64 chance) different otherwise.
  std::uint64_t checksum() const {
    static_assert(runs_on_host<Exec>, "the checksum is the host's");
    std::uint64_t sum = 0;
    const Box b = owned_;
    for (int f = 0; f < N; ++f) {
      const CellArray<double> u = state_[f].cells();
      std::uint64_t part = 0;
      Kokkos::parallel_reduce(
          "bench::checksum", Kokkos::RangePolicy<HostExec>(0, b.num_cells()),
          [=](std::int64_t n, std::uint64_t& s) {
            const int i = b.lo[X] + int(n % b.extent(X)), j = b.lo[Y] + int(n / b.extent(X) % b.extent(Y)),
                      k = b.lo[Z] + int(n / (std::int64_t(b.extent(X)) * b.extent(Y)));
            std::uint64_t bits = 0;
            const double v = u(i, j, k);
            std::memcpy(&bits, &v, sizeof bits);
            s += mix_bits(bits ^ mix_bits(std::uint64_t(n) * 4 + std::uint64_t(f)));
          },
          part);
      sum += part;
    }
    return sum;
  }

 private:
  void fill_walls() {
    for (int f = 0; f < N; ++f)
      fill_wall_ghosts(Exec(), state_[f], all_faces(), conditions_[f], WallFill::All, Update::reach);
  }

  StateIn<N> in() const {
    StateIn<N> s;
    for (int f = 0; f < N; ++f) s[f] = state_[f].cells();
    return s;
  }

  StateOut<N> out() const {
    StateOut<N> s;
    for (int f = 0; f < N; ++f) s[f] = next_[f].cells();
    return s;
  }

  Box owned_;
  Fields state_, next_;
  std::array<WallConditions, N> conditions_;
  WallMirror mirror_[N][3];
  bool walls_fresh_ = false;  // the state's wall ghosts mirror its owned cells
};

//! The checksum of the state after `steps` untiled steps from `initial`.
template <class Update, class Initial>
std::uint64_t untiled_checksum(WalledState<Update>& s, const Update& update, const Initial& initial, int steps) {
  s.set(initial);
  for (int n = 0; n < steps; ++n) s.untiled_step(update);
  return s.checksum();
}

//! The checksum of the state after `steps` steps from `initial` in tiled
//! cycles `c` (steps a multiple of c.levels).
template <class Update, class Initial>
std::uint64_t tiled_checksum(WalledState<Update>& s, const Update& update, const Initial& initial, int steps,
                             const TiledCycle<Update::fields>& c) {
  s.set(initial);
  for (int n = 0; n < steps; n += c.levels) s.tiled_cycle(update, c);
  return s.checksum();
}

//! The search a run makes for its tiled cycles (node-hybrid/TilingTuner.hpp),
//! made on `state`: k of tiled_depths by host tile rows, each candidate's
//! cycles timed one by one, as a run times its first cycles.
template <class Update>
TilingTuner measure_tilings(WalledState<Update>& state, const Update& update) {
  TilingTuner tuner({tiled_depths.begin(), tiled_depths.end()}, host_tile_rows(state.owned().extent(Y), host_threads()),
                    {first_tiled_steps, first_host_tile_rows(state.owned().extent(X))});
  while (tuner.tuning()) {
    const TilingChoice c = tuner.current();
    const TiledCycle<Update::fields> cycle = state.cycle(c.steps, host_tile(state.owned(), c.rows, Update::reach));
    const double start = Timers::now();
    state.tiled_cycle(update, cycle);
    tuner.measured(c.steps, Timers::now() - start);
  }
  return tuner;
}

//! The tile for `steps` steps: `--tile` where given, else the fastest rows
//! the search measured at that k (its first rows where it measured none).
inline TileShape tile_for(int steps, const std::optional<TileShape>& given, const TilingTuner& search,
                          const Box& owned, int reach) {
  if (given) return *given;
  int rows = first_host_tile_rows(owned.extent(X));
  double fastest = 0.0;
  for (const TilingTuner::Trial& t : search.trials())
    if (t.choice.steps == steps && (fastest == 0.0 || t.seconds_per_step < fastest))
      rows = t.choice.rows, fastest = t.seconds_per_step;
  return host_tile(owned, rows, reach);
}

//! The search's candidates as one line: "k=2 256x32: 1.42", in Gcell/s over `owned`.
inline std::string search_text(const TilingTuner& search, const Box& owned, int reach) {
  std::string text;
  char item[64];
  for (const TilingTuner::Trial& t : search.trials()) {
    std::snprintf(item, sizeof item, "%sk=%d %s: %.3f", text.empty() ? "" : ", ", t.choice.steps,
                  tile_text(host_tile(owned, t.choice.rows, reach)).c_str(), owned.num_cells() / t.seconds_per_step / 1e9);
    text += item;
  }
  return text;
}

//! The tiled variants a benchmark times: a cycle of each of tiled_depths
//! with its tile (tile_for), then the search's choice ("auto"), each
//! checked bit for bit against untiled steps.
template <class Update>
struct TiledVariants {
  Box owned;
  TilingTuner search;
  std::vector<TiledCycle<Update::fields>> cycles;
  std::vector<bool> exact;

  template <class Initial>
  TiledVariants(WalledState<Update>& state, const Update& update, const Initial& initial,
                const std::optional<TileShape>& given)
      : owned(state.owned()), search(measure_tilings(state, update)) {
    for (int k : tiled_depths) cycles.push_back(state.cycle(k, tile_for(k, given, search, state.owned(), Update::reach)));
    const TilingChoice chosen = *search.chosen();
    cycles.push_back(state.cycle(chosen.steps, host_tile(state.owned(), chosen.rows, Update::reach)));
    const int checked_steps = 2 * deepest_tiled_depth;
    const std::uint64_t untiled = untiled_checksum(state, update, initial, checked_steps);
    for (const TiledCycle<Update::fields>& c : cycles)
      exact.push_back(tiled_checksum(state, update, initial, checked_steps, c) == untiled);
  }

  //! A timed body per variant, each `steps` steps (a multiple of every depth).
  void add_bodies(std::vector<std::function<void()>>& bodies, WalledState<Update>& state, const Update& update,
                  int steps) const {
    for (const TiledCycle<Update::fields>& c : cycles)
      bodies.push_back([&state, &update, c, steps] {
        for (int s = 0; s < steps; s += c.levels) state.tiled_cycle(update, c);
      });
  }

  //! Their table rows, `row(name, seconds per step, exact)`, from `seconds`
  //! (one per variant), then the search's candidates.
  template <class Row>
  void print(const double* seconds, const Row& row) const {
    const auto name = [](const TiledCycle<Update::fields>& c) {
      return "k=" + std::to_string(c.levels) + ", tile " + tile_text(c.tile);
    };
    for (std::size_t v = 0; v + 1 < cycles.size(); ++v)
      row("tiled " + name(cycles[v]), seconds[v], exact[v] ? "yes" : "NO");
    row("tiled auto: " + name(cycles.back()), seconds[cycles.size() - 1], exact.back() ? "yes" : "NO");
    std::printf("        auto: chosen from %d candidates measured here (Gcell/s, in the order measured): %s\n",
                search.candidates(), search_text(search, owned, Update::reach).c_str());
  }
};

}  // namespace strata::bench
