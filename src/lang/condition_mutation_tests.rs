use super::condition_mutation::*;

/// The mutated statements of `stmt`, in order.
fn mutated(stmt: &str) -> Vec<String> {
    mutants(stmt).into_iter().map(|(m, _)| m).collect()
}

#[test]
fn is_none_and_is_not_none_flip() {
    assert_eq!(
        mutated("if current(instance=False) is None:")[0],
        "if current(instance=False) is not None:"
    );
    assert_eq!(
        mutated("'': lambda v: v is not None,"),
        ["'': lambda v: v is None,"]
    );
}

#[test]
fn equality_and_membership_flip() {
    assert_eq!(
        mutated("if a == b and c not in d:"),
        [
            "if a != b and c not in d:",
            "if a == b or c not in d:",
            "if a == b and c in d:",
            "if not (a == b and c not in d):",
        ]
    );
}

#[test]
fn a_boundary_moves_by_one() {
    assert_eq!(
        mutated("return i < n or j >= m"),
        [
            "return i <= n or j >= m",
            "return i < n and j >= m",
            "return i < n or j > m",
        ]
    );
}

#[test]
fn shifts_arrows_and_assignments_are_not_comparisons() {
    assert!(mutated("x = a << 2 >> b").is_empty());
    assert!(mutated("def f(x) -> int:").is_empty());
    assert!(mutated("y = f(k=v)").is_empty());
}

#[test]
fn a_for_clauses_in_is_left_and_a_membership_test_after_its_if_is_not() {
    assert!(mutated("for k in items:").is_empty());
    assert_eq!(
        mutated("xs = [k for k in items if k in seen]"),
        ["xs = [k for k in items if k not in seen]"]
    );
}

#[test]
fn strings_and_comments_are_never_mutated() {
    assert_eq!(
        mutated("if s == 'a < b and c':  # x is None"),
        [
            "if s != 'a < b and c':  # x is None",
            "if not (s == 'a < b and c'):  # x is None"
        ]
    );
}

#[test]
fn a_condition_is_negated_and_a_negated_one_loses_its_not() {
    assert_eq!(mutated("    if skip_empty:"), ["    if not skip_empty:"]);
    assert_eq!(mutated("    elif not done(x):"), ["    elif done(x):"]);
    assert_eq!(
        mutated("while queue and running:"),
        ["while queue or running:", "while not (queue and running):"]
    );
}

#[test]
fn each_mutant_says_what_it_changed() {
    let whys: Vec<String> = mutants("if x is None:")
        .into_iter()
        .map(|(_, w)| w)
        .collect();
    assert_eq!(whys, ["`is` as `is not`", "the condition negated"]);
}

#[test]
fn a_statement_with_many_operators_gives_at_most_the_cap() {
    let stmt = "if a == 1 and b == 2 and c == 3 and d == 4 and e == 5:";
    assert_eq!(mutants(stmt).len(), MAX_MUTANTS);
}

#[test]
fn arbitrary_text_never_panics() {
    for s in [
        "",
        ":",
        "if :",
        "if",
        "elif é == 'ü':",
        "while (a <\n b):",
        "x = 'unclosed == ",
    ] {
        let _ = mutants(s);
    }
}
