//! The order line attempts are offered in ([`Queue`]): the traceback's statements first,
//! then the other statements' first offers by turns with the branches their replies opened
//! (the model's next-likeliest lines, the guard and follow offers), each statement's share
//! by its rank: how unsure the model was of the line it first wrote there, weighed with its
//! place. What a step leaves the next is kept in the run's line memory.

use super::super::targets::{Target, Targets};
use super::{block_ended, branches, follow, guard, Offer, Place, LAST_PASS, TEMPERATURES};
use crate::graph::memory::line_offers::LineMemory;
use kotef_model::TokenChoice;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// The most branches offered in one repair step. In the real-project runs every task that
/// was solved was solved by a line attempt, and the free attempts made once the branches ran
/// out (about 20 s each, half of a 300 s budget) solved none: the branches go on while the
/// budget lasts, up to this bound.
pub const MAX_BRANCHES: usize = 60;

/// When the `round`-th branch (0 the first) of the statement ranked `order`-th (0 the first;
/// [`ranks`]: without token odds, the order it was offered in) comes: the lowest turn first,
/// a tie to the better ranked statement, then to the likelier branch.
/// A statement's share of the branches falls with its place: where the fix is one statement,
/// the statement it changes was among the first two offered in 10 of the 14 tuning tasks
/// whose fixed line was offered at all, and 6th or 8th in others. Of the first fifteen
/// branches the first statement gets five, the second three, and the eighth still one.
pub fn branch_turn(order: usize, round: usize) -> usize {
    (round + 1) * (order + 2)
}

/// How much a statement's place weighs against how unsure the model was of its first line
/// ([`unsure`]) in the branch schedule: a statement ranks by its least likely chosen token's
/// log-probability plus this times ln(place + 2), the most unsure first. Where the model is
/// sure of the line it wrote back (a log-probability near 0), it is most often right to;
/// where the fix's statement was offered in run 38 (held out), its branches would have come
/// in the first five statements' in 4 of 7 tasks by this rank, against 2 by the place alone,
/// and by the doubt alone in 3 (`scripts/line-odds.py`; the weight was chosen on three
/// tuning tasks before).
pub const PLACE_WEIGHT: f64 = 0.5;

/// How unsure the model was of the new statement it wrote: the log-probability of the least
/// likely token it chose, up to the block's end. `None` when the server sent no odds.
pub fn unsure(tokens: &[TokenChoice]) -> Option<f64> {
    let mut written = String::new();
    let mut least: Option<f64> = None;
    for t in tokens {
        if block_ended(&written) {
            break;
        }
        least = Some(least.map_or(t.logprob, |l| l.min(t.logprob)));
        written.push_str(&t.text);
    }
    least
}

/// The ranks in the branch schedule of the statements offered `0..n` (by their order): [`unsure`]
/// weighed with the place ([`PLACE_WEIGHT`]), the most unsure first, a tie to the earlier. A
/// statement whose first line came without odds ranks as though the model had been sure of
/// it: without odds, the rank is the order.
pub(super) fn ranks(unsure: &BTreeMap<usize, f64>, n: usize) -> Vec<usize> {
    let weight = |o: usize| {
        let place = PLACE_WEIGHT * ((o + 2) as f64).ln();
        unsure.get(&o).copied().unwrap_or(0.0) + place
    };
    let mut by_rank: Vec<usize> = (0..n).collect();
    by_rank.sort_by(|&a, &b| weight(a).total_cmp(&weight(b)).then(a.cmp(&b)));
    let mut rank = vec![0; n];
    for (r, o) in by_rank.into_iter().enumerate() {
        rank[o] = r;
    }
    rank
}

/// The statements still to offer, in order: each statement once (a statement the model left
/// as it was once more, hotter, before the next, when the server reported no alternatives);
/// once the frames' statements were offered, by turns with the branches the replies opened
/// ([`branches`], [`guard`], [`follow`]), each statement's likeliest not yet offered at its
/// turn ([`branch_turn`] by its rank: how unsure the model was of its first line, weighed
/// with its place, [`ranks`]), at most [`MAX_BRANCHES`]; then,
/// only when no reply reported alternatives, the frames' statements once more at
/// [`LAST_PASS`]. An offer made in an earlier step of the run is not made again, and the
/// branches it left are offered in this one ([`Queue::resume`]).
#[derive(Debug, Default)]
pub struct Queue {
    left: VecDeque<Offer>,
    pub(super) branches: Vec<Offer>,
    again: VecDeque<Offer>,
    branched: usize,
    /// First offers made in this step.
    firsts: usize,
    /// The frames' first offers still to make when the step began: made before any branch.
    lead: usize,
    /// Branches offered so far, per statement (by its order) and whether their lines go
    /// next to it ([`Queue::stream`]).
    rounds: BTreeMap<(usize, bool), usize>,
    /// The statements (by their order) whose guard and follow offers were made.
    guarded: BTreeSet<usize>,
    pub(super) reported: bool,
    /// Every offer made, this step and before ([`Offer::key`]).
    made: BTreeSet<String>,
    /// How unsure the model was of each statement's first line ([`unsure`]), by its order.
    unsure: BTreeMap<usize, f64>,
    /// The statements' keys ([`Target::statement_key`]), by their order.
    statements: Vec<String>,
}

impl Queue {
    /// The frames' statements, the sweep's, then the frames' once more at [`LAST_PASS`].
    #[cfg(test)]
    pub fn new(targets: Targets) -> Self {
        Queue::resume(targets, &LineMemory::default())
    }

    /// [`Queue::new`] after the earlier steps `memory` recalls: the offers they made are
    /// left out, and the branches they left, of statements still offered, come at their
    /// statement's turn (its place in `targets` now).
    pub fn resume(targets: Targets, memory: &LineMemory) -> Self {
        let offer = |(order, target): (usize, &Target), temperature, tries| Offer {
            target: target.clone(),
            temperature,
            prefix: String::new(),
            score: 0.0,
            tries,
            order,
            place: Place::Instead,
        };
        let fresh = |o: &Offer| !memory.made.contains(&o.key());
        let all: Vec<&Target> = (targets.frames.iter())
            .chain(&targets.sweep)
            .chain(&targets.farther)
            .collect();
        let branches = (memory.pending.iter())
            .filter_map(|b| {
                let order = all.iter().position(|t| t.same_statement(&b.target))?;
                Some(Offer {
                    target: all[order].clone(),
                    order,
                    ..b.clone()
                })
            })
            .filter(fresh)
            .collect();
        let statements: Vec<String> = all.iter().map(|t| t.statement_key()).collect();
        let unsure = (statements.iter().enumerate())
            .filter_map(|(o, k)| Some((o, *memory.unsure.get(k)?)))
            .collect();
        let lead = (targets.frames.iter().enumerate())
            .map(|t| offer(t, TEMPERATURES[0], 0))
            .filter(fresh)
            .count();
        Queue {
            lead,
            left: (all.iter().copied().enumerate())
                .map(|t| offer(t, TEMPERATURES[0], 0))
                .filter(fresh)
                .collect(),
            again: (targets.frames.iter().enumerate())
                .map(|t| offer(t, LAST_PASS, TEMPERATURES.len()))
                .filter(fresh)
                .collect(),
            branches,
            reported: memory.reported,
            made: memory.made.clone(),
            unsure,
            statements,
            ..Queue::default()
        }
    }

    /// `memory` with what a later step of the run is to know of this one's offers: every
    /// offer made, the branches not offered, whether offers were left, and the changes
    /// line attempts `tested`.
    pub fn remember(&self, mut memory: LineMemory, tested: BTreeSet<String>) -> LineMemory {
        memory.made = self.made.clone();
        memory.pending = self.branches.clone();
        memory.reported = self.reported;
        memory.left = !self.left.is_empty()
            || !self.branches.is_empty()
            || (!self.reported && !self.again.is_empty());
        memory.tested = tested;
        for (o, u) in &self.unsure {
            if let Some(k) = self.statements.get(*o) {
                memory.unsure.insert(k.clone(), *u);
            }
        }
        memory
    }

    /// The next offer, if any is left: never one made before (two replies may open the same
    /// branch).
    pub fn next(&mut self) -> Option<Offer> {
        loop {
            let o = self.pick()?;
            if self.made.insert(o.key()) {
                return Some(o);
            }
        }
    }

    /// The next offer not made yet: the frames' first offers, then a statement's first
    /// offer and a branch by turns ([`Queue::branch_due`]), then what is left of either.
    fn pick(&mut self) -> Option<Offer> {
        let again = self.left.front().is_some_and(|o| o.tries > 0);
        if again || !self.branch_due() {
            if let Some(o) = self.first() {
                return Some(o);
            }
        }
        if let Some(o) = self.next_branch() {
            return Some(o);
        }
        if let Some(o) = self.first() {
            return Some(o);
        }
        if self.reported {
            return None;
        }
        self.again.pop_front()
    }

    /// The next statement's first offer (or its hotter retry), counted.
    fn first(&mut self) -> Option<Offer> {
        let o = self.left.pop_front()?;
        if o.tries == 0 {
            self.firsts += 1;
        }
        Some(o)
    }

    /// Whether a branch comes before the next first offer: once the frames' statements
    /// were offered, one branch after each other statement's first offer. The first pass
    /// over every statement came before any branch, so where a task offers 30 to 60
    /// statements the first branch at the fix's statement came at attempt 35 to 67 of
    /// about 100 (held-out runs 40 to 43, `scripts/line-odds.py`), though the model had been
    /// less sure there than almost anywhere.
    fn branch_due(&self) -> bool {
        self.firsts > self.lead + self.branched && !self.branches.is_empty()
    }

    /// The branch whose turn comes first ([`branch_turn`] by its statement's rank and the
    /// branches offered there so far, the lines put instead of the statement and those put
    /// next to it counted apart), the likeliest on a tie; none past [`MAX_BRANCHES`].
    fn next_branch(&mut self) -> Option<Offer> {
        if self.branched >= MAX_BRANCHES {
            return None;
        }
        let n = (self.branches.iter().map(|o| o.order + 1))
            .chain([self.statements.len()])
            .max()
            .unwrap_or(0);
        let ranks = ranks(&self.unsure, n);
        let rank = |o: &Offer| ranks.get(o.order).copied().unwrap_or(o.order);
        let round = |o: &Offer| self.rounds.get(&Self::stream(o)).copied().unwrap_or(0);
        let key = |o: &Offer| (branch_turn(rank(o), round(o)), rank(o));
        let sooner = |a: &Offer, b: &Offer| key(a).cmp(&key(b)).then(b.score.total_cmp(&a.score));
        let best = (0..self.branches.len())
            .min_by(|&i, &j| sooner(&self.branches[i], &self.branches[j]))?;
        let o = self.branches.swap_remove(best);
        self.branched += 1;
        *self.rounds.entry(Self::stream(&o)).or_default() += 1;
        Some(o)
    }

    /// The turns an offer takes its place in: its statement's, and whether its lines go
    /// next to the statement ([`guard`], [`follow`] and their branches). Those had the
    /// statement's turns with its other branches at a fixed score, so they came after every
    /// likelier branch there: at the 9th statement of tuning task fastapi-10 the guard the fix
    /// needs came last of 86 attempts. Fixes add lines about as often as they change one.
    fn stream(o: &Offer) -> (usize, bool) {
        (o.order, o.place != Place::Instead)
    }

    /// The model answered `offer` writing `tokens` (with alternatives, when the server
    /// reported them): the branches they open join the queue, and, after a statement's
    /// first reply, its guard and follow offers ([`guard`], [`follow`]). Whether the server reported
    /// alternatives decides what a statement written back as it was gets next.
    pub fn replied(&mut self, offer: &Offer, tokens: &[TokenChoice]) {
        if tokens.iter().any(|t| !t.others.is_empty()) {
            self.reported = true;
        }
        self.branches.extend(branches(offer, tokens));
        let first = offer.prefix.is_empty() && offer.place == Place::Instead;
        if first && offer.tries == 0 {
            if let Some(u) = unsure(tokens) {
                self.unsure.entry(offer.order).or_insert(u);
            }
        }
        if offer.prefix.is_empty() && self.guarded.insert(offer.order) {
            self.branches.extend(guard(offer));
            self.branches.extend(follow(offer));
        }
    }

    /// `offer` changed nothing: when the server reported no alternatives, it comes again
    /// next, hotter, unless it was the last try (its branches are offered otherwise).
    pub fn unchanged(&mut self, offer: Offer) {
        if self.reported {
            return;
        }
        let tries = offer.tries + 1;
        if let Some(&temperature) = TEMPERATURES.get(tries) {
            self.left.push_front(Offer {
                temperature,
                tries,
                ..offer
            });
        }
    }
}
