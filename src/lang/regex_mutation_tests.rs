use super::regex_mutation::*;

fn bodies(p: &str, extra: &[char]) -> Vec<String> {
    mutants(p, '\'', extra)
        .into_iter()
        .map(|(m, _)| m)
        .collect()
}

#[test]
fn a_raw_string_with_pattern_characters_is_a_pattern_and_a_plain_string_is_not() {
    let stmt = r#"    m = re.match(r'^(?P<func>%s)\((?P<args>[a-z,]+)\)$' % NAME, expr, 'a+b')"#;
    let found: Vec<&str> = patterns(stmt)
        .iter()
        .map(|p| &stmt[p.start..p.end])
        .collect();
    assert_eq!(found, [r"^(?P<func>%s)\((?P<args>[a-z,]+)\)$"]);
}

#[test]
fn a_plus_after_an_atom_becomes_a_star_first() {
    assert_eq!(
        bodies(r"^(?P<args>[a-zA-Z0-9_$,]+)\)$", &[])[0],
        r"^(?P<args>[a-zA-Z0-9_$,]*)\)$"
    );
}

#[test]
fn an_unquantified_group_is_made_optional_and_a_lookahead_is_not() {
    let got = bodies(r"a(?=b)(c|d)", &[]);
    assert!(got.contains(&r"a(?=b)(c|d)?".to_string()), "{got:?}");
    assert!(!got.contains(&r"a(?=b)?(c|d)".to_string()), "{got:?}");
}

#[test]
fn a_negated_class_loses_one_member_at_a_time_but_never_a_range() {
    let got = bodies(r"[^/?#a-z]+", &[]);
    for want in [r"[^?#a-z]+", r"[^/#a-z]+", r"[^/?a-z]+"] {
        assert!(got.contains(&want.to_string()), "{want} not in {got:?}");
    }
    assert!(!got.iter().any(|m| m.contains("[^/?#]")), "{got:?}");
}

#[test]
fn the_tests_punctuation_is_added_to_a_class_escaped_where_a_class_needs_it() {
    let got = bodies(r"&([^;]+;)", &['&', '-', '\'']);
    assert!(got.contains(&r"&([^&;]+;)".to_string()), "{got:?}");
    assert!(got.contains(&r"&([^\-;]+;)".to_string()), "{got:?}");
    assert!(
        !got.iter().any(|m| m.contains("[^';]")),
        "the quote is never added: {got:?}"
    );
}

#[test]
fn anchors_are_dropped_one_at_a_time() {
    let got = bodies(r"^ab$", &[]);
    assert!(
        got.contains(&"ab$".to_string()) && got.contains(&"^ab".to_string()),
        "{got:?}"
    );
}

#[test]
fn the_punctuation_of_a_tests_strings_is_read_in_order_outside_the_code() {
    assert_eq!(
        literal_punctuation("self.assertEqual(unescape('&a&quot;'), '&a\"')  # x.y"),
        ['&', ';', '"']
    );
}

#[test]
fn patterns_written_with_any_characters_are_read_without_a_panic() {
    for p in [
        r"[a-é]+",
        r"[\",
        r"(é|ü)*[^ä-ö\]]",
        "{",
        r"[",
        r"\",
        "(?<=x)",
    ] {
        assert!(mutants(p, '\'', &['é', ']']).len() <= MAX_MUTANTS);
    }
    assert_eq!(mutants(r"[a-é]+", '\'', &[])[0].0, r"[a-é]*");
    assert_eq!(patterns("x = r'[é-ü'  # r'(é)'").len(), 1);
}
