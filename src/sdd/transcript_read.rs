//! A transcript's lines read back for its readers (`kotef report`, the page): the run's
//! ending record, the diff record a publishing run adds (`{"type":"diff"}`), and the other
//! events grouped by step. A line that is not JSON is kept as it is; a transcript written
//! before steps were recorded is grouped by each event's `step` field.

use serde_json::Value;

/// One step of the run: its node, its events in order, and where it sent the run.
#[derive(Debug, Default)]
pub struct StepView {
    pub step: u64,
    pub node: String,
    pub events: Vec<Value>,
    /// The `step_done` record: the decision and its reason.
    pub done: Option<Value>,
}

/// A transcript as its readers see it.
#[derive(Debug, Default)]
pub struct Transcript {
    pub ending: Option<Value>,
    pub diff: Option<Value>,
    pub steps: Vec<StepView>,
    /// Lines that are not JSON objects, and a `cut` note.
    pub notes: Vec<String>,
    pub model_calls: usize,
    pub tool_calls: usize,
    pub verifications: usize,
}

/// The text of `v` (a string as it is, `null` as nothing, anything else as JSON).
pub fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Reads a transcript's text (one JSON object per line).
pub fn read(transcript: &str) -> Transcript {
    let mut t = Transcript::default();
    for line in transcript.lines().filter(|l| !l.trim().is_empty()) {
        let e = match serde_json::from_str::<Value>(line) {
            Ok(e @ Value::Object(_)) => e,
            _ => {
                t.notes.push(line.to_string());
                continue;
            }
        };
        let kind = e["type"].as_str().unwrap_or("").to_string();
        match kind.as_str() {
            "ending" => t.ending = Some(e),
            "diff" => t.diff = Some(e),
            "cut" => t.notes.push(text(&e["note"])),
            "step" => t.steps.push(StepView {
                step: e["step"].as_u64().unwrap_or(0),
                node: text(&e["node"]),
                ..StepView::default()
            }),
            "step_done" => {
                let step = step_for(&mut t, &e);
                step.done = Some(e);
            }
            kind => {
                match kind {
                    "model_reply" | "model_error" => t.model_calls += 1,
                    "tool_call" => t.tool_calls += 1,
                    "verification" => t.verifications += 1,
                    _ => {}
                }
                step_for(&mut t, &e).events.push(e);
            }
        }
    }
    t
}

/// The step an event belongs to: the last one when its number matches, else a new one
/// (a transcript written before steps were recorded has only the events' numbers).
fn step_for<'a>(t: &'a mut Transcript, e: &Value) -> &'a mut StepView {
    let n = e["step"].as_u64().unwrap_or(0);
    if !matches!(t.steps.last(), Some(s) if s.step == n) {
        t.steps.push(StepView {
            step: n,
            node: text(&e["node"]),
            ..StepView::default()
        });
    }
    let last = t.steps.len() - 1;
    &mut t.steps[last]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_go_to_the_step_that_opened_before_them() {
        let t = read(concat!(
            r#"{"type":"step","step":1,"node":"planner"}"#,
            "\n",
            r#"{"type":"model_reply","step":1,"node":"planner"}"#,
            "\n",
            r#"{"type":"step_done","step":1,"node":"planner","decision":"coder","reason":"r","progress":false}"#,
            "\n",
            r#"{"type":"step","step":2,"node":"coder"}"#,
            "\n",
            r#"{"type":"tool_call","step":2,"node":"coder","name":"read_file"}"#,
            "\n",
            r#"{"type":"ending","status":"done_success"}"#,
        ));
        let shape: Vec<(u64, usize, bool)> = t
            .steps
            .iter()
            .map(|s| (s.step, s.events.len(), s.done.is_some()))
            .collect();
        assert_eq!(shape, vec![(1, 1, true), (2, 1, false)]);
        assert!(t.ending.is_some());
    }

    #[test]
    fn without_step_records_events_are_grouped_by_their_step_number() {
        let t = read(concat!(
            r#"{"type":"model_reply","step":0,"node":"planner"}"#,
            "\n",
            r#"{"type":"tool_call","step":1,"node":"coder"}"#,
            "\n",
            r#"{"type":"tool_call","step":1,"node":"coder"}"#,
            "\nnot json",
        ));
        let shape: Vec<(u64, usize)> = t.steps.iter().map(|s| (s.step, s.events.len())).collect();
        assert_eq!(
            (shape, t.notes),
            (vec![(0, 1), (1, 2)], vec!["not json".to_string()])
        );
    }
}
