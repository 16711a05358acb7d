// The registry of a run's statistics. Each statistic is registered once, for a kind of owner (the
// fabric, ports, VLs, QPs, traffic classes, ...), with its name, unit, how it merges and the
// outputs it appears in (stat_outputs.h); the owners of that kind are then added as rows, each
// holding a small value that says where its figures are (a pointer to the module). Adding a
// counter to every output it belongs in is the one line of its registration:
//
//   ports.counter("tx_ebp", "packets", kPortsCsv, [](const PortStatsSource& p) { return p.port->stats().tx_ebp; });
//
// Modules keep their counters as plain fields, incremented on the hot path without any lookup or
// call into the registry: the registry reads them through the getters only when snapshot() is
// taken for the writers (sim/report/stat_tables.h).
//
// Partitions. A run simulated on several threads keeps one registry per partition, with the same
// kinds and statistics (the same registration code runs for each) and the rows of the owners that
// partition simulates; owners every partition has (the fabric's own figures) are added by each,
// with getters that read that partition's state only. Their snapshots merge into one: rows are
// matched by kind and key path (the keys of the row and of its parents); a row in one snapshot
// only is taken as it is, one in several gets each statistic combined by its Merge (kSum adds,
// kMax and kMin keep the extreme, kSame requires equal values; an absent value yields to a present
// one). For the rows to come out in the order of a one-partition run, each would carry its owner's
// place in one global order (node index, then port), which the merge sorts each kind's rows by.
// Figures that are ratios of fabric-wide sums are not registered as such but computed from the
// merged counts.
#pragma once
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <typeindex>
#include <utility>
#include <vector>

#include "sim/core/stats_snapshot.h"

namespace ibfsim {

// Whether T is a std::optional (to_stat_value: an empty one is absent).
template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

// Any integer becomes a count, any floating-point number a real figure, an empty optional absent,
// text a string (a `const char*` too: a variant would take it for something else).
template <class V>
StatValue to_stat_value(V&& v) {
  using D = std::decay_t<V>;
  if constexpr (std::is_same_v<D, StatValue>) {
    return std::forward<V>(v);
  } else if constexpr (IsOptional<D>::value) {
    return v ? to_stat_value(*v) : StatValue{};
  } else if constexpr (std::is_integral_v<D>) {
    static_assert(!std::is_same_v<D, bool>, "a statistic is a number or text, not a bool");
    return static_cast<std::uint64_t>(v);
  } else if constexpr (std::is_floating_point_v<D>) {
    return static_cast<double>(v);
  } else if constexpr (std::is_same_v<D, std::vector<double>>) {
    return std::forward<V>(v);
  } else {
    return std::string(std::forward<V>(v));
  }
}

// The kinds of owner, their statistics and their owners' rows. Movable, not copyable; a handle on
// a kind (Kind) points at its registry: take it again after a move.
class StatsRegistry {
 private:
  // The owners of one kind and the getters of its statistics.
  struct Store {
    virtual ~Store() = default;
    // Appends the owner's values; a statistic not `wanted` is absent (not read).
    virtual void read(std::size_t owner, const std::vector<bool>& wanted, std::vector<StatValue>& out) const = 0;
  };
  template <class T>
  struct TypedStore : Store {
    std::deque<T> owners;  // a deque: owners stay where they are as more are added
    std::vector<std::function<StatValue(const T&)>> getters;
    void read(std::size_t owner, const std::vector<bool>& wanted, std::vector<StatValue>& out) const override {
      for (std::size_t i = 0; i < getters.size(); ++i)
        out.push_back(wanted[i] ? getters[i](owners[owner]) : StatValue{});
    }
  };

 public:
  // A handle on one kind of owner whose rows hold a T, to register its statistics and add its
  // owners.
  template <class T>
  class Kind {
   public:
    // A count (of packets, bytes, events): merges by sum. `get` reads it from an owner's T.
    template <class F>
    Kind& counter(std::string name, std::string unit, StatOutputs outputs, F get) {
      return add_stat(StatInfo{std::move(name), std::move(unit), Merge::kSum, outputs, -1, false}, std::move(get));
    }
    // Any other figure: a time, a fraction, a mean; `decimals`: fixed decimals in CSV (-1: shortest).
    template <class F>
    Kind& figure(std::string name, std::string unit, Merge merge, StatOutputs outputs, F get, int decimals = -1) {
      return add_stat(StatInfo{std::move(name), std::move(unit), merge, outputs, decimals, false}, std::move(get));
    }
    // What an owner is rather than what it measured (a peer's name, a port state): it does not make
    // a row appear in an output by itself (stat_tables.h).
    template <class F>
    Kind& attribute(std::string name, StatOutputs outputs, F get) {
      return add_stat(StatInfo{std::move(name), "", Merge::kSame, outputs, -1, true}, std::move(get));
    }
    // Adds an owner: its T, its keys (one per key name of the kind: numbers or text) and, for a
    // nested kind, its parent's row. Returns its row.
    template <class... K>
    std::size_t add(T owner, std::size_t parent_row, K&&... keys) {
      store_->owners.push_back(std::move(owner));
      return registry_->add_row(kind_, store_->owners.size() - 1, parent_row,
                                std::vector<StatValue>{to_stat_value(std::forward<K>(keys))...});
    }
    std::size_t index() const { return kind_; }

   private:
    friend class StatsRegistry;
    Kind(StatsRegistry* registry, std::size_t kind, TypedStore<T>* store)
        : registry_(registry), kind_(kind), store_(store) {}
    template <class F>
    Kind& add_stat(StatInfo info, F get) {
      registry_->add_stat(kind_, std::move(info));
      store_->getters.push_back([get = std::move(get)](const T& owner) { return to_stat_value(get(owner)); });
      return *this;
    }
    StatsRegistry* registry_;
    std::size_t kind_;
    TypedStore<T>* store_;
  };

  // Registers a kind of owner: its unique name, the names of its keys, and where its rows go
  // (a nested kind belongs to `parent`, a kind registered before it).
  template <class T>
  Kind<T> add_kind(std::string name, std::vector<std::string> keys, Nesting nesting = Nesting::kTop,
                   std::size_t parent = kNoStatParent) {
    auto store = std::make_unique<TypedStore<T>>();
    TypedStore<T>* s = store.get();
    const std::size_t k = add_kind_entry(
        StatKindInfo{std::move(name), parent, nesting, std::move(keys), {}}, std::move(store), typeid(T));
    return Kind<T>(this, k, s);
  }
  // The kind registered under `name`, to register more of its statistics (checked: it exists and
  // its rows hold a T).
  template <class T>
  Kind<T> kind(const std::string& name) {
    const std::size_t k = find_kind(name, typeid(T));
    return Kind<T>(this, k, static_cast<TypedStore<T>*>(kinds_[k].store.get()));
  }
  bool has_kind(const std::string& name) const;
  std::size_t kinds() const { return kinds_.size(); }
  std::size_t rows() const { return rows_.size(); }

  // Reads every statistic of every owner now.
  StatsSnapshot snapshot() const;
  // Reads the statistics in `outputs` now, of the rows whose kinds have some there and of their
  // parents (for their keys); every kind is described, the other values are absent. What results.json
  // needs of a large fabric is a few rows of it.
  StatsSnapshot snapshot(StatOutputs outputs) const;

  // Streaming, for the tables of a large fabric, which a snapshot would hold all at once: reads the
  // rows of the kinds with statistics in `outputs`, one at a time in the order they were added, and
  // calls `f(index, row)` with each: its index among all rows, and the row (its values: the
  // statistics in `outputs`, the others absent; its `parent`: the parent's index among all rows,
  // for row_keys). Nothing is kept.
  void read_rows(StatOutputs outputs, const std::function<void(std::size_t, const StatRow&)>& f) const;
  // The kinds, as a snapshot describes them; a row's keys and parent by its index among all rows;
  // how many rows read_rows(outputs) reads.
  std::vector<StatKindInfo> kind_infos() const;
  const std::vector<StatValue>& row_keys(std::size_t row) const { return rows_.at(row).keys; }
  std::size_t row_parent(std::size_t row) const { return rows_.at(row).parent; }
  std::size_t rows_in(StatOutputs outputs) const;

 private:
  struct KindEntry {
    StatKindInfo info;
    std::unique_ptr<Store> store;
    std::type_index type;
  };
  struct RowEntry {
    std::size_t kind, owner, parent;
    std::vector<StatValue> keys;
  };
  std::size_t add_kind_entry(StatKindInfo info, std::unique_ptr<Store> store, std::type_index type);
  std::size_t find_kind(const std::string& name, std::type_index type) const;
  void add_stat(std::size_t kind, StatInfo info);
  // Per kind: whether it has statistics in `outputs`, and which of its statistics are there.
  std::vector<std::vector<bool>> wanted(StatOutputs outputs) const;
  std::size_t add_row(std::size_t kind, std::size_t owner, std::size_t parent, std::vector<StatValue> keys);

  std::vector<KindEntry> kinds_;
  std::vector<RowEntry> rows_;
};

}  // namespace ibfsim
