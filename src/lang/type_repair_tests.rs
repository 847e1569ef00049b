use super::type_repair::*;

fn rewrites(fault: &Fault, stmt: &str) -> Vec<String> {
    statement_rewrites(fault, stmt)
        .into_iter()
        .map(|(s, _)| s)
        .collect()
}

#[test]
fn a_none_rejected_by_name_gets_the_empty_values_of_the_types_the_message_names_in_order() {
    let f = fault(
        "TypeError",
        "'args' parameter should be dict, list or tuple. Not <class 'NoneType'>",
    );
    assert_eq!(
        f,
        Some(Fault::Missing {
            empties: vec!["{}", "[]"],
            attribute: None
        })
    );
}

#[test]
fn a_none_asked_for_a_string_method_gets_an_empty_string() {
    let f = fault(
        "builtins.AttributeError",
        "'NoneType' object has no attribute 'lower'",
    );
    assert_eq!(
        f,
        Some(Fault::Missing {
            empties: vec!["''"],
            attribute: Some("lower".into())
        })
    );
}

#[test]
fn type_errors_that_name_a_conversion_ask_for_it_and_others_say_nothing() {
    assert_eq!(
        fault("TypeError", "expected string or bytes-like object"),
        Some(Fault::Cast(vec!["str"]))
    );
    assert_eq!(fault("TypeError", "'int' object is not iterable"), None);
    assert_eq!(fault("AssertionError", "None != 'foo'"), None);
    assert_eq!(
        fault("IndexError", "string index out of range"),
        Some(Fault::Index)
    );
}

#[test]
fn the_values_a_statement_reads_leave_out_what_it_assigns_calls_names_and_quotes() {
    let read: Vec<(String, bool)> =
        values(r#"    s += b"Host: " + to_bytes(parsed.hostname, errors='x') + b"\r\n" # a.b"#)
            .into_iter()
            .map(|v| (v.text, v.called))
            .collect();
    assert_eq!(
        read,
        [
            ("to_bytes".to_string(), true),
            ("parsed.hostname".into(), false)
        ]
    );
}

#[test]
fn a_none_passed_on_is_given_the_empty_value_where_the_statement_reads_it() {
    let f = fault(
        "TypeError",
        "to_bytes must receive a unicode, str or bytes object, got NoneType",
    )
    .unwrap();
    assert_eq!(
        rewrites(
            &f,
            "    s += b\"Host: \" + to_bytes(parsed.hostname) + b\"\\r\\n\""
        ),
        [
            "    s += b\"Host: \" + to_bytes(parsed.hostname or '') + b\"\\r\\n\"",
            "    s += b\"Host: \" + to_bytes(parsed.hostname or b'') + b\"\\r\\n\"",
        ]
    );
}

#[test]
fn a_value_of_the_wrong_type_is_converted_where_it_is_read_not_where_it_is_assigned() {
    let f = fault("TypeError", "expected string or bytes-like object").unwrap();
    assert_eq!(
        rewrites(&f, "    int_str = re.sub(r'[,\\.\\+]', '', int_str)"),
        ["    int_str = re.sub(r'[,\\.\\+]', '', str(int_str))"]
    );
}

#[test]
fn a_none_asked_for_an_attribute_is_replaced_or_its_statement_skipped() {
    let f = fault(
        "AttributeError",
        "'NoneType' object has no attribute 'lower'",
    )
    .unwrap();
    assert_eq!(
        rewrites(&f, "        name = header.value.lower()"),
        [
            "        name = (header.value or '').lower()",
            "        if header.value is None:\n            return\n        name = header.value.lower()",
        ]
    );
}

#[test]
fn an_index_past_the_end_becomes_a_slice() {
    assert_eq!(
        rewrites(&Fault::Index, "    if src_txt[-1] != \"\\n\":"),
        ["    if src_txt[-1:] != \"\\n\":"]
    );
    assert_eq!(
        rewrites(&Fault::Index, "    first = parts[0]"),
        ["    first = parts[0:1]"]
    );
}

#[test]
fn a_raise_statement_is_never_rewritten() {
    let f = fault("TypeError", "got NoneType, not str").unwrap();
    assert!(rewrites(&f, "        raise TypeError(err)").is_empty());
}

#[test]
fn a_signatures_parameters_leave_out_self_stars_annotations_and_defaults() {
    assert_eq!(
        parameters("def url_concat(self, url: str, args=None,\n        *rest, key=(1, 2), **kw):"),
        ["url", "args", "key"]
    );
}

#[test]
fn a_none_parameter_is_given_an_empty_value_first_then_returns() {
    let got: Vec<Vec<String>> = guards("args", &["{}"], &["url".into(), "args".into()])
        .into_iter()
        .map(|(g, _)| g)
        .collect();
    assert_eq!(
        got,
        [
            vec!["if args is None:", "    args = {}"],
            vec!["if args is None:", "    return url"],
            vec!["if args is None:", "    return None"],
        ]
    );
}

#[test]
fn a_statement_with_non_ascii_names_and_strings_is_read_whole() {
    let read: Vec<String> = values("    café = naïve(size, 'é') + señal")
        .into_iter()
        .map(|v| v.text)
        .collect();
    assert_eq!(read, ["naïve", "size", "señal"]);
}
