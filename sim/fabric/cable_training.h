// What each cable of a topology trains to (link_training.h): the best speed and width both ends
// enable, up to what the cable carries, with its failed and reversed lanes; and when the whole
// fabric is up, which a scenario needs before it builds the fabric (its phases start then).
#pragma once
#include <cstddef>

#include "sim/fabric/topology.h"
#include "sim/phy/link_training.h"

namespace ibfsim {

TrainingResult train_cable(const Topology& topo, std::size_t cable);

// When the last cable that trains is up, all trainings starting at time 0; 0 without the training
// delay, or when no cable trains.
Time all_links_up_at(const Topology& topo, bool training_delay);

}  // namespace ibfsim
