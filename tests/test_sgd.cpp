// SGD and the stale-gradient rules, each checked against the step worked out by hand.
#include <catch2/catch.hpp>
#include <vector>

#include "models/apply_pending.hpp"
#include "models/optimizer.hpp"
#include "models/sgd.hpp"

using namespace failsim::models;

TEST_CASE("plain SGD step is p -= lr g", "[sgd]") {
  Sgd sgd({0.5f, 0.0f, 0.0f}, 2);
  std::vector<float> p{1.0f, 2.0f};
  const std::vector<float> g{2.0f, -4.0f};
  sgd.step(p, g);
  CHECK(p == std::vector<float>{0.0f, 4.0f});
  CHECK(sgd.velocity().empty());
}

TEST_CASE("momentum and weight decay follow PyTorch's formulation", "[sgd]") {
  Sgd sgd({0.1f, 0.9f, 0.5f}, 1);
  std::vector<float> p{1.0f};
  const std::vector<float> g{1.0f};
  sgd.step(p, g);  // g' = 1 + 0.5*1 = 1.5; v = 1.5; p = 1 - 0.15 = 0.85
  CHECK(p[0] == Approx(0.85f));
  sgd.step(p, g);  // g' = 1 + 0.425 = 1.425; v = 0.9*1.5 + 1.425 = 2.775; p = 0.85 - 0.2775
  CHECK(p[0] == Approx(0.5725f));
  CHECK(sgd.velocity()[0] == Approx(2.775f));
}

namespace {
struct Pending {
  std::vector<std::vector<float>> grads;
  std::vector<std::int64_t> staleness, count;
  /// `g` is the sum of `n` gradients of staleness `s`.
  void add(std::vector<float> g, std::int64_t s, std::int64_t n = 1) {
    grads.push_back(std::move(g));
    staleness.push_back(s);
    count.push_back(n);
  }
  std::vector<PendingGradient> list() const {
    std::vector<PendingGradient> out;
    for (std::size_t i = 0; i < grads.size(); ++i) {
      out.push_back({grads[i], staleness[i], count[i]});
    }
    return out;
  }
};

std::vector<float> apply(StaleRuleConfig rule, const Pending& pending, ApplyOutcome* outcome) {
  Optimizer sgd(SgdConfig{0.1f, 0.0f, 0.0f}, 1);
  std::vector<float> p{0.0f}, scratch(1);
  *outcome = apply_pending(sgd, p, p, pending.list(), rule, scratch);
  return p;
}
}  // namespace

TEST_CASE("stale-gradient rules combine pending gradients as documented", "[sgd]") {
  Pending pending;
  pending.add({1.0f}, 1);
  pending.add({2.0f}, 4);
  pending.add({4.0f}, 2);
  ApplyOutcome out;

  CHECK(apply({StaleRule::SUM}, pending, &out)[0] == Approx(-0.7f));  // 0.1 * 7
  CHECK(out.applied == 3);
  CHECK(apply({StaleRule::MEAN}, pending, &out)[0] == Approx(-0.7f / 3));
  CHECK(apply({StaleRule::INVERSE_STALENESS}, pending, &out)[0] == Approx(-0.1f * (1 + 0.5f + 2)));

  StaleRuleConfig drop{StaleRule::DROP_STALE};
  drop.drop_bound = 2;
  CHECK(apply(drop, pending, &out)[0] == Approx(-0.5f));
  CHECK(out.applied == 2);
  CHECK(out.dropped == 1);

  StaleRuleConfig paper{StaleRule::PAPER};
  paper.paper_threshold = 3;  // 3 pending is not "more than 3": base rate
  CHECK(apply(paper, pending, &out)[0] == Approx(-0.7f));
  CHECK(out.learning_rate == 0.1f);
  paper.paper_threshold = 2;  // more than 2 pending: the low rate
  CHECK(apply(paper, pending, &out)[0] == Approx(-0.007f));
  CHECK(out.learning_rate == 0.001f);
}

TEST_CASE("a sum of pending gradients counts each of them", "[sgd]") {
  Pending pending;
  pending.add({3.0f}, 1, 2);  // two gradients of staleness 1: 1 + 2
  pending.add({4.0f}, 4);
  ApplyOutcome out;

  CHECK(apply({StaleRule::SUM}, pending, &out)[0] == Approx(-0.7f));
  CHECK(out.applied == 3);
  CHECK(apply({StaleRule::MEAN}, pending, &out)[0] == Approx(-0.7f / 3));
  CHECK(apply({StaleRule::INVERSE_STALENESS}, pending, &out)[0] == Approx(-0.1f * (3 + 1)));

  StaleRuleConfig drop{StaleRule::DROP_STALE};
  drop.drop_bound = 2;
  CHECK(apply(drop, pending, &out)[0] == Approx(-0.3f));
  CHECK(out.applied == 2);
  CHECK(out.dropped == 1);

  StaleRuleConfig paper{StaleRule::PAPER};
  paper.paper_threshold = 2;  // 3 gradients, though 2 entries: the low rate
  CHECK(apply(paper, pending, &out)[0] == Approx(-0.007f));
  CHECK(out.learning_rate == 0.001f);
}

TEST_CASE("under a rule of weight 1 a sum in arrival order gives the same bits", "[sgd]") {
  // The stateless store sums what it holds as it arrives: the step must not change by a bit.
  const std::vector<float> g1{0.1f, 1e-7f, 3.3f}, g2{0.7f, 1.0f, -3.3f}, g3{1e8f, 0.3f, 1e-8f};
  std::vector<float> sum = g1;
  for (const auto* g : {&g2, &g3}) {
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += (*g)[i];
  }
  for (const StaleRule rule : {StaleRule::SUM, StaleRule::MEAN, StaleRule::PAPER}) {
    Optimizer one_by_one(SgdConfig{0.1f, 0.9f, 0.01f}, 3), summed(SgdConfig{0.1f, 0.9f, 0.01f}, 3);
    std::vector<float> p{1.0f, 2.0f, 3.0f}, q = p, scratch(3);
    StaleRuleConfig config{rule};
    config.paper_threshold = 2;
    const std::vector<PendingGradient> each{{g1, 1}, {g2, 2}, {g3, 1}};
    const std::vector<PendingGradient> together{{sum, 1, 3}};
    const ApplyOutcome a = apply_pending(one_by_one, p, p, each, config, scratch);
    const ApplyOutcome b = apply_pending(summed, q, q, together, config, scratch);
    CHECK(p == q);
    CHECK(a.applied == b.applied);
    CHECK(a.learning_rate == b.learning_rate);
  }
}

TEST_CASE("applying nothing leaves the parameters alone", "[sgd]") {
  ApplyOutcome out;
  Pending none;
  CHECK(apply({StaleRule::SUM}, none, &out)[0] == 0.0f);
  CHECK(out.applied == 0);
  CHECK(out.learning_rate == 0.0f);
}
