//! Line attempts: the statements the failing run's traceback passes through in the project's
//! code, each offered to the model as a search/replace block begun for it (the file's path,
//! `<<<<<<< SEARCH`, the statement as it is, `=======`), so the model writes only the new
//! statement. A small model shown where an error was raised keeps rewriting that line
//! (`startswith(b'Sitemap:')` six times), while the fix is often the caller's line that passed
//! the wrong value (`sitemap_urls_from_robots(response.body)` → `response.text`); begun at
//! that line it writes the fix in a few tokens. The frames are offered from the outermost
//! (the call the test made into the project) inward; only to a server that continues a
//! begun reply ([`kotef_model::Model::continues_replies`]). After the frames, the other
//! statements of the definitions the attempts are shown (the frames' functions, those the
//! failure's names define: where a failure raised in the test points) are offered the same
//! way, nearest the frame's line first (in a definition the failure only named, nearest its
//! returns), then the statements that set the attributes they read (and the signature whose
//! parameter such a statement takes); a fix is most often one statement, and trying each costs a few seconds where a free
//! attempt costs tens. Each reply's next-likeliest lines are offered after ([`branches`]).

use super::targets::Target;
use kotef_model::TokenChoice;
use kotef_tools::{Change, EditBlock};

/// The temperatures a statement is offered at: the likeliest new line first (greedy, so the
/// alternatives the server reports lie along it); once more, hotter, when the model wrote it
/// back as it was and the server reported no alternatives.
pub const TEMPERATURES: [f64; 2] = [0.0, 0.8];

/// The temperature the frames' statements are offered at once more, after every statement
/// was offered once, when the server reports no alternatives: the line the fix is on,
/// sampled again, writes another value.
pub const LAST_PASS: f64 = 1.0;

/// How many of the likeliest other tokens a line attempt asks for at each token it writes.
pub const ALTERNATIVES: u8 = 5;

/// Another token less likely than this (natural log-probability, about 2 %) opens no branch.
pub const MIN_ALTERNATIVE: f64 = -4.0;

/// A branch whose new statement so far is less likely than this is not offered.
pub const MIN_SCORE: f64 = -7.0;

/// The most branches one reply opens (the likeliest).
pub const MAX_BRANCHES_PER_REPLY: usize = 4;

/// The score a guard offer ([`guard`]) has among its statement's offers whose lines go next
/// to it (which take turns of their own, [`Queue::stream`]), and on a tie of turns with a
/// branch: that of another token of about 5 %.
pub const GUARD_SCORE: f64 = -3.0;

/// The score a [`follow`] offer has as a guard's ([`GUARD_SCORE`]): that of another token of
/// about 3 %, after the guard (of the fixes that add lines next to a statement in the
/// tuning tasks, four go before it and two or three after).
pub const FOLLOW_SCORE: f64 = -3.5;

pub use crate::graph::memory::line_offers::{Offer, Place};

mod queue;
pub use queue::Queue;
#[cfg(test)]
use queue::{ranks, unsure, MAX_BRANCHES};

impl Offer {
    /// The reply begun for the model: [`begun_reply`] at the statement, then the prefix.
    pub fn begun(&self) -> String {
        format!("{}{}", begun_reply(&self.target), self.prefix)
    }
}

/// The branches a reply to `offer` opens: at each token of its new statement (until the
/// block's end), each other token the model found likely (at least [`MIN_ALTERNATIVE`]; not
/// another way to end the block where the reply ended it, which writes the same) gives
/// an offer whose new statement begins with the reply up to that token and then the other
/// token, the model to write the rest; scored by the log-probability of that start, at least
/// [`MIN_SCORE`], the likeliest [`MAX_BRANCHES_PER_REPLY`]. A small model that writes a wrong
/// value at the right statement has often the right one as its second choice at one token
/// (`is None` → `is not None`); its next-likeliest lines, each different, cost a few tokens
/// each where samples at a higher temperature mostly repeat the likeliest.
pub fn branches(offer: &Offer, tokens: &[TokenChoice]) -> Vec<Offer> {
    let mut written = offer.prefix.clone();
    let mut score = offer.score;
    let mut out = Vec::new();
    for t in tokens {
        if block_ended(&written) {
            break;
        }
        // Where the reply ended its block, another ending writes the same statement.
        let ends = block_ended(&format!("{written}{}", t.text));
        for (other, logprob) in &t.others {
            let s = score + logprob;
            let same = other == &t.text || (ends && block_ended(&format!("{written}{other}")));
            if !same && !other.is_empty() && *logprob >= MIN_ALTERNATIVE && s >= MIN_SCORE {
                out.push(Offer {
                    target: offer.target.clone(),
                    temperature: TEMPERATURES[0],
                    prefix: format!("{written}{other}"),
                    score: s,
                    tries: TEMPERATURES.len(),
                    order: offer.order,
                    place: offer.place,
                });
            }
        }
        written.push_str(&t.text);
        score += t.logprob;
    }
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    out.truncate(MAX_BRANCHES_PER_REPLY);
    out
}

/// The offer of lines to put before `offer`'s statement, begun `if` at its indent (no space
/// after: a model's tokens carry their leading space, and one begun `if ` wrote
/// `if  isinstance(…)`): a guard (`if param is None:` then `return []`), or the statement
/// wrapped in a condition. Fixes of real bugs add such lines as often as they change one,
/// and a model shown a statement rewrites it rather than adds to it. The statement follows what the model writes unless
/// that holds it ([`change`]); it takes its statement's turns with [`follow`], at [`GUARD_SCORE`]. `None` for
/// a statement nothing can go before (`elif`, `else`, `except`, `finally`, a decorator or a
/// definition's header).
pub fn guard(offer: &Offer) -> Option<Offer> {
    let first = offer.target.text.lines().next()?;
    let code = first.trim_start();
    let closed = [
        "elif ", "elif(", "else:", "else ", "except", "finally", "@", "def ", "class ", ")", "]",
        "}",
    ];
    let words: Vec<&str> = code.split_whitespace().take(2).collect();
    if code.is_empty() || closed.iter().any(|c| code.starts_with(c)) || words == ["async", "def"] {
        return None;
    }
    Some(Offer {
        target: offer.target.clone(),
        temperature: TEMPERATURES[0],
        prefix: format!("{}if", &first[..first.len() - code.len()]),
        score: GUARD_SCORE,
        tries: TEMPERATURES.len(),
        order: offer.order,
        place: Place::Before,
    })
}

/// The offer of lines to put after `offer`'s statement, begun with the statement and a new
/// line (the model writes the indent: its tokens carry it, and the next word's leading space
/// with it): a call the state needs next (`self.file.seek(0)` after the file is opened), a
/// value set. Fixes of real bugs add lines after a statement too, and a model shown a
/// statement only rewrites it. The new lines are set at the statement's indent
/// ([`change`]); it takes its statement's turns with [`guard`], at [`FOLLOW_SCORE`]. `None` after a header
/// (its body would have to move), a decorator, or a statement after which nothing in its
/// block runs (`return`, `raise`, `continue`, `break`), nor after `pass` (which is replaced).
pub fn follow(offer: &Offer) -> Option<Offer> {
    let text = &offer.target.text;
    let code = text.lines().next()?.trim_start();
    let word = code
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .next();
    let last = ["return", "raise", "continue", "break", "pass"];
    let closed = ["@", ")", "]", "}"];
    if code.is_empty()
        || text.lines().any(header)
        || word.is_some_and(|w| last.contains(&w))
        || closed.iter().any(|c| code.starts_with(c))
    {
        return None;
    }
    Some(Offer {
        target: offer.target.clone(),
        temperature: TEMPERATURES[0],
        prefix: format!("{text}\n"),
        score: FOLLOW_SCORE,
        tries: TEMPERATURES.len(),
        order: offer.order,
        place: Place::After,
    })
}

/// Whether the new statement written so far reached its block's end marker or fence.
fn block_ended(written: &str) -> bool {
    written.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with(">>>>>>>") || l.starts_with("```") || l.starts_with("=======")
    })
}

/// The reply begun for the model at `t`: the path, a fence, the block's search half.
pub fn begun_reply(t: &Target) -> String {
    let lang = if t.path.ends_with(".py") {
        "python"
    } else {
        ""
    };
    format!(
        "{}\n```{lang}\n<<<<<<< SEARCH\n{}\n=======\n",
        t.path, t.text
    )
}

/// Whether `line` opens a block: its code (before a comment) ends in `:`.
fn header(line: &str) -> bool {
    line.split(" #")
        .next()
        .unwrap_or(line)
        .trim_end()
        .ends_with(':')
}

/// `statement` indented one level, to follow lines written before it that end in a header
/// with no body yet (`if value is not None:`, the statement wrapped in a condition), in the
/// unit its own indent uses (a tab or four spaces). `None` when it is a header itself (its
/// block would have to move with it) or holds a triple-quoted string (whose text indenting
/// would change): such a wrapping cannot be written.
fn nested(statement: &str) -> Option<String> {
    if statement.lines().any(header) || statement.contains("\"\"\"") || statement.contains("'''") {
        return None;
    }
    let unit = if statement.starts_with('\t') {
        "\t"
    } else {
        "    "
    };
    Some(shifted(statement.lines(), unit))
}

/// `lines` joined, each but a blank one (left empty) after `pad`.
fn shifted<'a>(lines: impl Iterator<Item = &'a str>, pad: &str) -> String {
    lines
        .map(|l| {
            if l.trim().is_empty() {
                String::new()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The change a line attempt's reply makes: `t`'s statement replaced by what the model wrote
/// after the begun part, up to the block's end marker, its closing fence, or the reply's end
/// (a reply cut at its cap, or stopped before the marker, still says its new lines). Lines
/// written less indented than the statement are shifted to its indent (a model that writes
/// the new line flush left). Lines written to go before the statement ([`Place::Before`], a
/// [`guard`]) are followed by it unless they hold its first line, one level deeper when they
/// end in a header with no body ([`nested`]); lines written after it ([`Place::After`], a
/// [`follow`]) are set at its indent. `None` when nothing was written, the statement as it
/// was, or a header that cannot wrap it.
pub fn change(t: &Target, content: &str, place: Place) -> Option<EditBlock> {
    let rest = content.strip_prefix(begun_reply(t).as_str())?;
    let replace = match place {
        Place::After => {
            let new = in_block(written(rest.strip_prefix(&format!("{}\n", t.text))?));
            format!(
                "{}\n{}",
                t.text,
                at_indent(&new, statement_indent(t), true)?
            )
        }
        Place::Instead | Place::Before => {
            let replace = at_indent(&written(rest), statement_indent(t), false)?;
            let head = t.text.lines().next().unwrap_or_default().trim();
            if place == Place::Before && !replace.lines().any(|l| l.trim() == head) {
                let last = replace.lines().rev().find(|l| !l.trim().is_empty());
                if last.is_some_and(header) {
                    format!("{replace}\n{}", nested(&t.text)?)
                } else {
                    format!("{replace}\n{}", t.text)
                }
            } else {
                replace
            }
        }
    };
    if replace.trim_end() == t.text.trim_end() {
        return None;
    }
    Some(EditBlock {
        path: Some(t.path.clone()),
        change: Change::Replace {
            search: t.with_lead(&t.text),
            replace: t.with_lead(&replace),
        },
    })
}

/// The lines a reply wrote, up to its block's end marker or fence, without blank lines at
/// the end.
fn written(rest: &str) -> Vec<&str> {
    let mut new: Vec<&str> = Vec::new();
    for line in rest.lines() {
        let l = line.trim();
        if l.starts_with(">>>>>>>") || l.starts_with("```") || l.starts_with("=======") {
            break;
        }
        new.push(line);
    }
    while new.last().is_some_and(|l| l.trim().is_empty()) {
        new.pop();
    }
    new
}

/// `lines` up to the first that is less indented than the first: what a model writes after
/// the new lines (the file's next definition, at a lesser indent) is not part of them.
fn in_block(mut lines: Vec<&str>) -> Vec<&str> {
    let mut code = lines.iter().filter(|l| !l.trim().is_empty());
    if let Some(first) = code.next().map(|l| indent(l)) {
        let end = lines
            .iter()
            .position(|l| !l.trim().is_empty() && indent(l) < first);
        lines.truncate(end.unwrap_or(lines.len()));
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    lines
}

/// The indent of `t`'s first line.
fn statement_indent(t: &Target) -> usize {
    t.text.lines().next().map_or(0, indent)
}

/// How many characters of `l` are its indent.
fn indent(l: &str) -> usize {
    l.len() - l.trim_start().len()
}

/// `lines` joined with the least indented at `want` (shifted right to it; also left when
/// `exact`: lines after a statement that is no header cannot be deeper); `None` when all are
/// blank.
fn at_indent(lines: &[&str], want: usize, exact: bool) -> Option<String> {
    let least = (lines.iter().filter(|l| !l.trim().is_empty()))
        .map(|l| indent(l))
        .min()?;
    if exact && least > want {
        let cut = least - want;
        return Some(
            (lines.iter())
                .map(|l| l.get(cut..).filter(|_| !l.trim().is_empty()).unwrap_or(""))
                .collect::<Vec<_>>()
                .join("\n"),
        );
    }
    let pad = " ".repeat(want.saturating_sub(least));
    Some(shifted(lines.iter().copied(), &pad))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::memory::line_offers::LineMemory;
    use crate::graph::nodes::repair::targets::tests::{files, trace};
    use crate::graph::nodes::repair::targets::Targets;
    use crate::graph::prompt::code_view::Traceback;
    use std::collections::{BTreeMap, BTreeSet};

    /// The statements at the traceback's frames, as the queue gets them first.
    fn frame_targets(trace: &Traceback, files: &[(String, String)]) -> Vec<Target> {
        super::super::targets::targets(trace, files, &[]).frames
    }

    #[test]
    fn a_statement_written_twice_in_its_file_is_changed_at_the_frames_copy() {
        let code = "def a():\n    import x\n\n\ndef b():\n    import x\n";
        let trace = Traceback {
            repo: vec![("m.py".into(), 6)],
            outside: Vec::new(),
            focus: Vec::new(),
            located: Vec::new(),
        };
        let t = &frame_targets(&trace, &[("m.py".into(), code.into())])[0];
        let reply = format!("{}import y\n>>>>>>> REPLACE\n", begun_reply(t));
        let Some(EditBlock {
            change: Change::Replace { search, replace },
            ..
        }) = change(t, &reply, Place::Instead)
        else {
            panic!("no change read from {reply:?}");
        };
        assert_eq!(
            code.replacen(&search, &replace, 1),
            "def a():\n    import x\n\n\ndef b():\n    import y\n"
        );
    }

    #[test]
    fn a_statement_written_back_as_it_was_is_offered_once_more_hotter() {
        let t = frame_targets(&trace(), &files());
        let copied = format!("{}{}\n>>>>>>> REPLACE\n", begun_reply(&t[0]), t[0].text);
        assert_eq!(change(&t[0], &copied, Place::Instead), None);
        let mut q = Queue::new(Targets {
            frames: t.clone(),
            sweep: Vec::new(),
            ..Default::default()
        });
        let first = q.next().unwrap();
        q.unchanged(first);
        let again = q.next().unwrap();
        assert_eq!((&again.target, again.temperature), (&t[0], TEMPERATURES[1]));
        q.unchanged(again);
        assert_eq!(q.next().map(|o| o.target), Some(t[1].clone()));
    }

    #[test]
    fn the_begun_reply_opens_a_block_at_the_statement() {
        let t = &frame_targets(&trace(), &files())[1];
        assert_eq!(
            begun_reply(t),
            "utils.py\n```python\n<<<<<<< SEARCH\n        if line.lstrip().startswith('Sitemap:'):\n=======\n"
        );
    }

    #[test]
    fn the_model_s_new_line_replaces_the_statement_at_its_indent() {
        let t = &frame_targets(&trace(), &files())[0];
        let reply = format!(
            "{}for url in sitemap_urls_from_robots(response.text):\n>>>>>>> REPLACE\n```\nThis decodes it.",
            begun_reply(t)
        );
        let Some(EditBlock {
            change: Change::Replace { search, replace },
            ..
        }) = change(t, &reply, Place::Instead)
        else {
            panic!("no change read from {reply:?}");
        };
        assert_eq!(search, t.text);
        assert_eq!(
            replace,
            "            for url in sitemap_urls_from_robots(response.text):"
        );
    }

    #[test]
    fn a_reply_that_wrote_nothing_after_the_begun_part_makes_no_change() {
        let t = &frame_targets(&trace(), &files())[0];
        assert_eq!(
            change(
                t,
                &format!("{}>>>>>>> REPLACE\n", begun_reply(t)),
                Place::Instead
            ),
            None
        );
    }

    #[test]
    fn the_frames_come_first_then_the_sweep_then_the_frames_again_hotter() {
        let t = frame_targets(&trace(), &files());
        let mut q = Queue::new(Targets {
            frames: vec![t[0].clone()],
            sweep: vec![t[1].clone()],
            ..Default::default()
        });
        let order: Vec<(Target, f64)> =
            std::iter::from_fn(|| q.next().map(|o| (o.target, o.temperature))).collect();
        assert_eq!(
            order,
            [
                (t[0].clone(), TEMPERATURES[0]),
                (t[1].clone(), TEMPERATURES[0]),
                (t[0].clone(), LAST_PASS)
            ]
        );
    }

    /// A token the model wrote, with the other tokens it found likely there.
    fn tok(text: &str, logprob: f64, others: &[(&str, f64)]) -> TokenChoice {
        TokenChoice {
            text: text.into(),
            logprob,
            others: others.iter().map(|(t, l)| (t.to_string(), *l)).collect(),
        }
    }

    /// A reply to the first offer of `t[0]` that wrote `for url in robots(response.body)`
    /// again, finding `text` (at -0.7) and `encode` (at -5) likely in place of `body`.
    fn reply_with_alternatives() -> Vec<TokenChoice> {
        vec![
            tok(
                "            for url in sitemap_urls_from_robots(response",
                -0.1,
                &[],
            ),
            tok(
                ".body",
                -0.5,
                &[(".body", -0.5), (".text", -0.7), (".encode", -5.0)],
            ),
            tok("):\n", -0.1, &[]),
            tok(">>>>>>> REPLACE\n", -0.1, &[("```", -0.2)]),
            tok("```\n", -0.1, &[("Done", -0.3)]),
        ]
    }

    fn first_offer(t: &Target) -> Offer {
        let mut q = Queue::new(Targets {
            frames: vec![t.clone()],
            sweep: Vec::new(),
            ..Default::default()
        });
        q.next().unwrap()
    }

    #[test]
    fn a_likely_other_token_opens_a_branch_begun_with_the_reply_up_to_it() {
        let t = frame_targets(&trace(), &files());
        let b = branches(&first_offer(&t[0]), &reply_with_alternatives());
        let prefixes: Vec<&str> = b.iter().map(|o| o.prefix.as_str()).collect();
        assert_eq!(
            prefixes,
            ["            for url in sitemap_urls_from_robots(response.text"]
        );
    }

    #[test]
    fn a_branch_is_the_begun_reply_then_its_prefix() {
        let t = frame_targets(&trace(), &files());
        let b = branches(&first_offer(&t[0]), &reply_with_alternatives());
        assert_eq!(
            b[0].begun(),
            format!("{}{}", begun_reply(&t[0]), b[0].prefix)
        );
    }

    #[test]
    fn a_branch_of_a_branch_keeps_its_prefix_and_adds_the_likelihoods() {
        let t = frame_targets(&trace(), &files());
        let parent = branches(&first_offer(&t[0]), &reply_with_alternatives()).remove(0);
        let child = branches(&parent, &[tok("):", -0.2, &[(")", -1.0)])]).remove(0);
        assert_eq!(
            (child.prefix.as_str(), child.score),
            (
                "            for url in sitemap_urls_from_robots(response.text)",
                -0.1 - 0.7 - 1.0
            )
        );
    }

    #[test]
    fn after_every_statement_the_branches_come_likeliest_first_and_no_hotter_pass() {
        let t = frame_targets(&trace(), &files());
        let mut q = Queue::new(Targets {
            frames: vec![t[0].clone()],
            sweep: vec![t[1].clone()],
            ..Default::default()
        });
        let first = q.next().unwrap();
        let unlikely = Offer {
            prefix: "x".into(),
            score: -6.0,
            ..first.clone()
        };
        q.branches.push(unlikely);
        q.replied(&first, &reply_with_alternatives());
        q.unchanged(first);
        let order: Vec<(String, String)> = std::iter::from_fn(|| {
            q.next()
                .map(|o| (o.target.text.trim().to_string(), o.prefix))
        })
        .collect();
        assert_eq!(
            order,
            [
                (t[1].text.trim().to_string(), String::new()),
                (
                    t[0].text.trim().to_string(),
                    "            for url in sitemap_urls_from_robots(response.text".into()
                ),
                (t[0].text.trim().to_string(), "            if".into()),
                (t[0].text.trim().to_string(), "x".into()),
            ]
        );
    }

    fn branch(t: &Target, order: usize, prefix: &str, score: f64) -> Offer {
        Offer {
            target: t.clone(),
            temperature: 0.0,
            prefix: prefix.into(),
            score,
            tries: TEMPERATURES.len(),
            order,
            place: Place::Instead,
        }
    }

    fn branch_order(mut q: Queue) -> Vec<String> {
        q.reported = true;
        std::iter::from_fn(|| q.next().map(|o| o.prefix)).collect()
    }

    #[test]
    fn the_first_statements_branches_come_by_turns_likeliest_first() {
        let t = frame_targets(&trace(), &files());
        let mut q = Queue::new(Targets::default());
        q.branches = vec![
            branch(&t[0], 1, "b1", -1.0),
            branch(&t[0], 0, "a2", -3.0),
            branch(&t[0], 1, "b2", -2.0),
            branch(&t[0], 0, "a1", -2.5),
        ];
        assert_eq!(branch_order(q), ["a1", "b1", "a2", "b2"]);
    }

    #[test]
    fn a_later_statements_likeliest_branch_comes_before_the_first_statements_fifth() {
        let t = frame_targets(&trace(), &files());
        let mut q = Queue::new(Targets::default());
        q.branches = (1..=6)
            .map(|i| branch(&t[0], 0, &format!("a{i}"), -(i as f64)))
            .chain([branch(&t[0], 7, "h1", -1.0)])
            .collect();
        assert_eq!(branch_order(q), ["a1", "a2", "a3", "a4", "h1", "a5", "a6"]);
    }

    #[test]
    fn once_the_frames_were_offered_a_branch_follows_each_other_statements_first_offer() {
        let t = frame_targets(&trace(), &files());
        let mut q = Queue::new(Targets {
            frames: numbered(&t[0], 2),
            sweep: numbered(&t[1], 3),
            ..Default::default()
        });
        let mut order = Vec::new();
        while let Some(o) = q.next() {
            if o.prefix.is_empty() {
                q.replied(&o, &reply_unsure(-1.0));
            }
            order.push((o.order, o.place, !o.prefix.is_empty()));
            if order.len() == 7 {
                break;
            }
        }
        let first = |o| (o, Place::Instead, false);
        assert_eq!(
            order,
            [
                first(0),
                first(1),
                first(2),
                (0, Place::Instead, true),
                first(3),
                (0, Place::Before, true),
                first(4),
            ]
        );
    }

    #[test]
    fn a_guard_takes_a_turn_of_its_own_before_its_statements_unlikelier_branches() {
        let t = frame_targets(&trace(), &files());
        let mut q = Queue::new(Targets::default());
        let first = first_offer(&t[0]);
        q.branches = (1..=3)
            .map(|i| branch(&t[0], 0, &format!("a{i}"), -(i as f64)))
            .collect();
        q.replied(&first, &[]);
        let order: Vec<(String, Place)> = {
            q.reported = true;
            std::iter::from_fn(|| q.next().map(|o| (o.prefix.trim().to_string(), o.place)))
                .collect()
        };
        assert_eq!(
            order,
            [
                ("a1".to_string(), Place::Instead),
                ("if".to_string(), Place::Before),
                ("a2".to_string(), Place::Instead),
                ("a3".to_string(), Place::Instead),
            ]
        );
    }

    /// A reply to a statement's first offer whose chosen token was `least` likely, with
    /// another a little less likely.
    fn reply_unsure(least: f64) -> Vec<TokenChoice> {
        vec![
            tok("    x = 1", least, &[("    x = 2", least - 0.5)]),
            tok("\n>>>>>>> REPLACE\n", -0.01, &[]),
        ]
    }

    #[test]
    fn how_unsure_is_the_least_likely_token_chosen_before_the_blocks_end() {
        let mut reply = reply_with_alternatives();
        reply.push(tok("Done.", -9.0, &[]));
        assert_eq!((unsure(&reply), unsure(&[])), (Some(-0.5), None));
    }

    #[test]
    fn a_statements_place_weighs_against_the_models_doubt() {
        let unsure = BTreeMap::from([(0, -1.0), (1, -2.0), (7, -1.2)]);
        assert_eq!(ranks(&unsure, 8), [1, 0, 3, 4, 5, 6, 7, 2]);
    }

    /// The first offers of two statements, the first answered sure (`first`), the second
    /// unsure (`second`), each finding another line a little less likely.
    fn queue_answered(first: f64, second: f64) -> Queue {
        let t = frame_targets(&trace(), &files());
        let mut q = Queue::new(Targets {
            frames: numbered(&t[0], 2),
            ..Default::default()
        });
        for least in [first, second] {
            let o = q.next().unwrap();
            q.replied(&o, &reply_unsure(least));
        }
        q
    }

    #[test]
    fn the_branches_of_the_statement_the_model_was_least_sure_of_come_first() {
        let mut q = queue_answered(-0.1, -2.0);
        let first = q.next().unwrap();
        assert_eq!((first.order, first.prefix.as_str()), (1, "    x = 2"));
    }

    #[test]
    fn where_the_model_was_as_sure_the_first_statements_branches_come_first() {
        let mut q = queue_answered(-0.1, -0.1);
        let first = q.next().unwrap();
        assert_eq!((first.order, first.prefix.as_str()), (0, "    x = 2"));
    }

    #[test]
    fn a_later_step_ranks_the_branches_left_by_how_unsure_the_model_was_before() {
        let q = queue_answered(-0.1, -2.0);
        let memory = q.remember(LineMemory::new("python3 -m unittest"), BTreeSet::new());
        let t = frame_targets(&trace(), &files());
        let mut q = Queue::resume(
            Targets {
                frames: numbered(&t[0], 2),
                ..Default::default()
            },
            &memory,
        );
        assert_eq!(q.next().map(|o| o.order), Some(1));
    }

    #[test]
    fn a_statement_offered_late_opens_branches_too() {
        let t = frame_targets(&trace(), &files());
        let mut q = Queue::new(Targets {
            frames: numbered(&t[0], 5),
            sweep: Vec::new(),
            ..Default::default()
        });
        let last = std::iter::from_fn(|| q.next()).last().unwrap();
        q.replied(&last, &reply_with_alternatives());
        assert_eq!(q.next().map(|o| o.order), Some(4));
    }

    /// `n` statements like `t`, each told apart by a comment.
    fn numbered(t: &Target, n: usize) -> Vec<Target> {
        (0..n)
            .map(|i| Target {
                text: format!("{}  # {i}", t.text),
                ..t.clone()
            })
            .collect()
    }

    /// What a step that made `made` offers of `targets` (each answered as
    /// [`reply_with_alternatives`] answers) leaves the next.
    fn memory_after(targets: &Targets, made: usize) -> LineMemory {
        let mut q = Queue::new(targets.clone());
        for _ in 0..made {
            let o = q.next().unwrap();
            q.replied(&o, &reply_with_alternatives());
        }
        q.remember(LineMemory::new("python3 -m unittest"), BTreeSet::new())
    }

    #[test]
    fn a_later_step_makes_none_of_the_offers_an_earlier_one_made() {
        let t = frame_targets(&trace(), &files());
        let targets = Targets {
            frames: numbered(&t[0], 3),
            ..Default::default()
        };
        let memory = memory_after(&targets, 2);
        let mut q = Queue::resume(targets.clone(), &memory);
        let first = q.next().unwrap();
        assert_eq!(
            (first.target, first.prefix),
            (targets.frames[2].clone(), String::new())
        );
    }

    #[test]
    fn the_branches_an_earlier_step_left_come_at_their_statements_place_now() {
        let t = frame_targets(&trace(), &files());
        let three = numbered(&t[0], 3);
        let before = Targets {
            frames: vec![three[2].clone()],
            ..Default::default()
        };
        let memory = memory_after(&before, 1);
        let now = Targets {
            frames: three.clone(),
            ..Default::default()
        };
        let mut q = Queue::resume(now, &memory);
        let offers: Vec<Offer> = std::iter::from_fn(|| q.next()).collect();
        let branch = offers.iter().find(|o| !o.prefix.is_empty()).unwrap();
        assert_eq!(
            (branch.target.text.as_str(), branch.order),
            (three[2].text.as_str(), 2)
        );
    }

    #[test]
    fn a_branch_two_replies_open_is_offered_once() {
        let t = frame_targets(&trace(), &files());
        let mut q = Queue::new(Targets::default());
        let b = branch(&t[0], 0, "a1", -1.0);
        q.branches = vec![b.clone(), b];
        assert_eq!(branch_order(q), ["a1"]);
    }

    #[test]
    fn a_step_that_made_every_offer_leaves_none_and_says_so() {
        let t = frame_targets(&trace(), &files());
        let targets = Targets {
            frames: vec![t[0].clone()],
            ..Default::default()
        };
        let mut q = Queue::new(targets);
        q.reported = true;
        while q.next().is_some() {}
        let memory = q.remember(LineMemory::new("python3 -m unittest"), BTreeSet::new());
        assert!(!memory.left && memory.pending.is_empty() && memory.made.len() == 1);
    }

    #[test]
    fn no_more_than_max_branches_are_offered_in_a_step() {
        let t = frame_targets(&trace(), &files());
        let mut q = Queue::new(Targets::default());
        let first = first_offer(&t[0]);
        for i in 0..MAX_BRANCHES + 5 {
            q.branches.push(Offer {
                prefix: format!("x{i}"),
                ..first.clone()
            });
        }
        q.reported = true;
        assert_eq!(std::iter::from_fn(|| q.next()).count(), MAX_BRANCHES);
    }

    #[test]
    fn a_statements_first_reply_opens_its_guard_offer_once() {
        let t = frame_targets(&trace(), &files());
        let mut q = Queue::new(Targets::default());
        let first = first_offer(&t[0]);
        q.replied(&first, &[]);
        q.replied(&first, &[]);
        let guards: Vec<&Offer> = q
            .branches
            .iter()
            .filter(|o| o.place == Place::Before)
            .collect();
        assert_eq!(
            guards
                .iter()
                .map(|o| (o.prefix.as_str(), o.score))
                .collect::<Vec<_>>(),
            [("            if", GUARD_SCORE)]
        );
    }

    #[test]
    fn nothing_is_guarded_before_an_else_or_a_decorator() {
        let t = frame_targets(&trace(), &files());
        for text in ["    else:", "    except ValueError:", "@property"] {
            let o = Offer {
                target: Target {
                    text: text.into(),
                    ..t[0].clone()
                },
                ..first_offer(&t[0])
            };
            assert_eq!(guard(&o), None, "{text}");
        }
    }

    /// What a guard offer's reply writing `written` after the begun part replaces `t` with.
    fn guarded(t: &Target, written: &str) -> Option<String> {
        let reply = format!("{}{written}\n>>>>>>> REPLACE\n", begun_reply(t));
        match change(t, &reply, Place::Before)?.change {
            Change::Replace { replace, .. } => Some(replace),
            Change::Code { .. } => None,
        }
    }

    #[test]
    fn a_guard_is_followed_by_the_statement_it_guards() {
        let t = &frame_targets(&trace(), &files())[0];
        let written = "            if response is None:\n                return";
        assert_eq!(
            guarded(t, written),
            Some(t.with_lead(&format!("{written}\n{}", t.text)))
        );
    }

    #[test]
    fn a_guard_that_wraps_the_statement_is_taken_as_written() {
        let t = &frame_targets(&trace(), &files())[0];
        let wrapped = format!("            if response:\n    {}", t.text);
        assert_eq!(guarded(t, &wrapped), Some(t.with_lead(&wrapped)));
    }

    #[test]
    fn a_guard_written_as_a_bare_header_wraps_the_statement_one_level_deeper() {
        let t = &Target {
            text: "            return str(response.body)".into(),
            ..frame_targets(&trace(), &files())[0].clone()
        };
        assert_eq!(
            guarded(t, "            if response is not None:"),
            Some(t.with_lead(
                "            if response is not None:\n                return str(response.body)"
            ))
        );
    }

    #[test]
    fn a_bare_header_before_a_compound_statement_is_no_change() {
        let t = &frame_targets(&trace(), &files())[0];
        assert_eq!(guarded(t, "            if response is not None:"), None);
    }

    #[test]
    fn a_statements_first_reply_opens_its_follow_offer_begun_with_the_statement() {
        let t = opened();
        let mut q = Queue::new(Targets::default());
        q.replied(&first_offer(&t), &[]);
        let follows: Vec<(String, f64)> = (q.branches.iter())
            .filter(|o| o.place == Place::After)
            .map(|o| (o.prefix.clone(), o.score))
            .collect();
        assert_eq!(follows, [(format!("{}\n", t.text), FOLLOW_SCORE)]);
    }

    #[test]
    fn nothing_follows_a_return_a_raise_a_header_or_a_decorator() {
        let t = frame_targets(&trace(), &files());
        let texts = [
            "    return x",
            "    raise ValueError(x)",
            "    continue",
            "    if x:",
            "    for a in (b,\n              c):",
            "@property",
        ];
        for text in texts {
            let o = Offer {
                target: Target {
                    text: text.into(),
                    ..t[0].clone()
                },
                ..first_offer(&t[0])
            };
            assert_eq!(follow(&o), None, "{text}");
        }
    }

    /// A target statement `    self.file = open(path)` in `m.py`.
    fn opened() -> Target {
        Target {
            path: "m.py".into(),
            text: "        self.file = open(path)".into(),
            lead: String::new(),
            line: 3,
        }
    }

    /// What a follow offer's reply writing `written` after the begun part replaces `t` with.
    fn followed(t: &Target, written: &str) -> Option<String> {
        let reply = format!("{}{}\n{written}\n>>>>>>> REPLACE\n", begun_reply(t), t.text);
        match change(t, &reply, Place::After)?.change {
            Change::Replace { replace, .. } => Some(replace),
            Change::Code { .. } => None,
        }
    }

    #[test]
    fn lines_written_after_the_statement_follow_it_at_its_indent() {
        let t = opened();
        assert_eq!(
            followed(&t, "self.file.seek(0)"),
            Some("        self.file = open(path)\n        self.file.seek(0)".into())
        );
    }

    #[test]
    fn lines_written_deeper_than_the_statement_are_set_at_its_indent() {
        let t = opened();
        assert_eq!(
            followed(&t, "            if x:\n                y()"),
            Some("        self.file = open(path)\n        if x:\n            y()".into())
        );
    }

    #[test]
    fn a_line_that_leaves_the_statements_block_ends_the_lines_after_it() {
        let t = opened();
        assert_eq!(
            followed(&t, "        self.file.seek(0)\n\n    def close(self):"),
            Some("        self.file = open(path)\n        self.file.seek(0)".into())
        );
    }

    #[test]
    fn a_follow_offer_that_wrote_nothing_after_the_statement_makes_no_change() {
        let t = opened();
        assert_eq!(followed(&t, ""), None);
    }
}
