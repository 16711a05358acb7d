// A typed event: one named member function of a block (a link receiver, a switch's input unit, a
// queue pair...) to be called at a simulated time, with its arguments kept by value. Every module
// learns what happens elsewhere only this way: a transmitter schedules the receiver's
// `head_arrives` for the instant the LRH arrives, a switch schedules its own `head_eligible`, and so
// on. Because the member function names the event, a reader (or an event trace, `ibfsim run
// --event-trace`) follows a packet by those names; no argument is packed into bits.
//
//   calendar.schedule<&LinkReceiver::head_arrives>(at, &receiver, packet, tail);
//
// The arguments must be trivially copyable and fit in kEventArgBytes (they are checked at compile
// time): pointers, times, port numbers, small structs.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "sim/core/time.h"

namespace ibfsim {

struct Packet;

constexpr std::size_t kEventArgBytes = 16;

// What every event of one kind shares: how to run it, its name and who its target is (for traces).
struct EventType {
  void (*invoke)(void* target, const unsigned char* args);
  const char* (*name)();
  std::string (*describe_target)(const void* target);  // the target's name() if it has one
  std::string (*describe_args)(const unsigned char* args);  // packets by id, numbers as numbers
};

// One scheduled event, as the calendar stores it (56 bytes).
struct Event {
  Time at = 0;
  // Among events at the same time, the smaller runs first. A calendar process sets it to the
  // model's own key (calendar_process.h, "Order"); a bare EventCalendar to its scheduling order.
  std::uint64_t order = 0;
  const EventType* type = nullptr;
  void* target = nullptr;
  alignas(8) unsigned char args[kEventArgBytes] = {};
  // The module whose calendar the event was scheduled on (ScheduledModule::id): while it runs,
  // that module is the origin of what it schedules. 0: none (a bare calendar).
  std::uint32_t module = 0;
  // An event of the whole fabric rather than of its module (ScheduledModule::schedule_global): in a
  // partitioned run it runs in an instant of its own, with every partition stopped at it.
  bool global = false;

  void run() const { type->invoke(target, args); }
  const char* name() const { return type->name(); }
  std::string target_name() const { return type->describe_target(target); }
  std::string args_text() const { return type->describe_args(args); }
};

namespace event_detail {

// The arguments of one event, laid out as a plain aggregate (trivially copyable when they are).
template <class... A>
struct Args;
template <>
struct Args<> {};
template <class A>
struct Args<A> {
  A a;
};
template <class A, class B>
struct Args<A, B> {
  A a;
  B b;
};
template <class A, class B, class C>
struct Args<A, B, C> {
  A a;
  B b;
  C c;
};

// "&ibfsim::LinkReceiver::head_arrives" out of the compiler's name of event_name<M>.
std::string member_name_from_signature(const char* pretty_function);

template <auto Method>
const char* event_name() {
  static const std::string name = member_name_from_signature(__PRETTY_FUNCTION__);
  return name.c_str();
}

template <class C, class = void>
struct HasName : std::false_type {};
template <class C>
struct HasName<C, std::void_t<decltype(std::string(std::declval<const C&>().name()))>> : std::true_type {};

std::string pointer_text(const void* p);
std::string packet_text(const Packet* p);

template <class T, class = void>
struct HasText : std::false_type {};
template <class T>
struct HasText<T, std::void_t<decltype(std::declval<const T&>().text())>> : std::true_type {};

// One argument as text: a packet by its id, integers and enums as numbers, a struct by its text()
// if it has one, anything else as "{}".
template <class T>
std::string arg_text(const T& v) {
  if constexpr (std::is_same_v<T, Packet*> || std::is_same_v<T, const Packet*>) return packet_text(v);
  else if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
  else if constexpr (std::is_integral_v<T>) return std::to_string(v);
  else if constexpr (std::is_enum_v<T>) return std::to_string(static_cast<std::underlying_type_t<T>>(v));
  else if constexpr (HasText<T>::value) return v.text();
  else return "{}";
}

template <class C>
std::string describe(const void* target) {
  if constexpr (HasName<C>::value) return std::string(static_cast<const C*>(target)->name());
  else return pointer_text(target);
}

template <auto Method, class M = decltype(Method)>
struct Binding;

template <auto Method, class C, class... P>
struct Binding<Method, void (C::*)(P...)> {
  using Target = C;
  using Pack = Args<std::decay_t<P>...>;
  static_assert(sizeof...(P) <= 3, "an event takes at most three arguments: group them in a struct");
  static_assert(sizeof(Pack) <= kEventArgBytes, "event arguments exceed kEventArgBytes");
  static_assert(std::is_trivially_copyable_v<Pack>, "event arguments must be trivially copyable");

  static void invoke(void* target, const unsigned char* bytes) {
    Pack p;
    std::memcpy(static_cast<void*>(&p), bytes, sizeof(Pack));
    C* t = static_cast<C*>(target);
    if constexpr (sizeof...(P) == 0) (t->*Method)();
    else if constexpr (sizeof...(P) == 1) (t->*Method)(p.a);
    else if constexpr (sizeof...(P) == 2) (t->*Method)(p.a, p.b);
    else (t->*Method)(p.a, p.b, p.c);
  }
  static std::string describe_args(const unsigned char* bytes) {
    Pack p;
    std::memcpy(static_cast<void*>(&p), bytes, sizeof(Pack));
    if constexpr (sizeof...(P) == 0) return "";
    else if constexpr (sizeof...(P) == 1) return arg_text(p.a);
    else if constexpr (sizeof...(P) == 2) return arg_text(p.a) + " " + arg_text(p.b);
    else return arg_text(p.a) + " " + arg_text(p.b) + " " + arg_text(p.c);
  }
  static constexpr EventType type{&invoke, &event_name<Method>, &describe<C>, &describe_args};

  template <class... X>
  static void store(unsigned char* bytes, X&&... x) {
    static_assert(sizeof...(X) == sizeof...(P), "wrong number of event arguments");
    const Pack p{static_cast<std::decay_t<P>>(std::forward<X>(x))...};
    std::memcpy(bytes, static_cast<const void*>(&p), sizeof(Pack));
  }
};

}  // namespace event_detail

// Builds the event that calls `target->*Method(args...)` at `at` (the order is set by the calendar).
template <auto Method, class T, class... X>
Event make_event(Time at, T* target, X&&... args) {
  using B = event_detail::Binding<Method>;
  static_assert(std::is_base_of_v<typename B::Target, T>, "the event's target is not of the member function's class");
  Event e;
  e.at = at;
  e.type = &B::type;
  e.target = static_cast<typename B::Target*>(target);
  B::store(e.args, std::forward<X>(args)...);
  return e;
}

}  // namespace ibfsim
