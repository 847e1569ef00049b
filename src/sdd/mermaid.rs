//! The Mermaid flowchart of the path a run took: nodes walked, edges labelled with counts.

use kotef_core::NodeName;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Renders `flowchart LR` from (from, to) → count (pure). `Done` is drawn as the end.
pub fn render(edges: &BTreeMap<(NodeName, NodeName), u32>) -> String {
    let mut s = String::from("flowchart LR\n    start((start)) --> planner\n");
    for ((from, to), n) in edges {
        let _ = writeln!(s, "    {} -->|{n}| {}", id(*from), id(*to));
    }
    s
}

fn id(n: NodeName) -> &'static str {
    match n {
        NodeName::Done => "finish((end))",
        other => other.as_str(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_are_labelled_with_counts() {
        let mut e = BTreeMap::new();
        e.insert((NodeName::Planner, NodeName::Researcher), 3);
        e.insert((NodeName::Snitch, NodeName::Done), 1);
        let m = render(&e);
        assert!(m.starts_with("flowchart LR"));
        assert!(m.contains("planner -->|3| researcher"));
        assert!(m.contains("snitch -->|1| finish((end))"));
    }
}
