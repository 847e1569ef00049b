use super::missing_name::*;

/// luigi's shape: a module that logs and binds no `logger`, and modules that bind it.
const REGISTER: &str = "\"\"\"Registers tasks.\n\nA second line.\n\"\"\"\n\nimport abc\ntry:\n    from collections import OrderedDict\nexcept ImportError:\n    from ordereddict import OrderedDict\n\nfrom luigi import six\n\n\nclass Register(abc.ABCMeta):\n    def instance(cls):\n        logger.debug('not hashable')\n";
const SPARK: &str = "import logging\nimport os\n\nlogger = logging.getLogger('luigi-interface')\n\n\ndef run():\n    logger.info('run')\n";
const HIVE: &str =
    "import logging\nfrom luigi import six\n\nlogger = logging.getLogger('luigi-interface')\n";
const WORKER: &str = "import logging\n\nlogger = logging.getLogger(__name__)\n";

#[test]
fn the_name_a_name_error_says_is_missing_is_read_from_the_failure() {
    let out = "Traceback (most recent call last):\n  File \"/w/luigi/task_register.py\", line 17, in instance\n    logger.debug('not hashable')\nNameError: name 'logger' is not defined\n";
    assert_eq!(undefined(out).as_deref(), Some("logger"));
}

#[test]
fn pytest_and_python_2_name_errors_are_read_too() {
    assert_eq!(
        undefined("E   NameError: global name 'json' is not defined").as_deref(),
        Some("json")
    );
}

#[test]
fn other_failures_name_nothing() {
    assert_eq!(
        undefined("AttributeError: 'A' object has no attribute 'b'"),
        None
    );
}

#[test]
fn an_assignment_comes_with_the_import_its_value_reads_the_commonest_first() {
    let donors = [
        ("luigi/contrib/spark.py", SPARK, false),
        ("luigi/contrib/hive.py", HIVE, false),
        ("luigi/worker.py", WORKER, false),
    ];
    assert_eq!(
        inserts("logger", REGISTER, donors),
        [
            "import logging\nlogger = logging.getLogger('luigi-interface')",
            "import logging\nlogger = logging.getLogger(__name__)",
        ]
    );
}

#[test]
fn an_import_already_in_the_module_is_not_added_again() {
    let target = "import logging\n\n\ndef f():\n    logger.info('x')\n";
    assert_eq!(
        inserts("logger", target, [("a.py", SPARK, false)]),
        ["logger = logging.getLogger('luigi-interface')"]
    );
}

#[test]
fn an_import_is_narrowed_to_the_name_and_made_absolute() {
    let donor = "import os, sys\nfrom .utils import clean as tidy, compat\n";
    assert_eq!(
        inserts("sys", "", [("pkg/sub/a.py", donor, false)]),
        ["import sys"]
    );
    assert_eq!(
        inserts("tidy", "", [("pkg/sub/a.py", donor, false)]),
        ["from pkg.sub.utils import clean as tidy"]
    );
}

#[test]
fn a_parenthesised_import_over_several_lines_binds_each_name() {
    let donor = "from pkg.compat import (\n    quote,\n    unquote,\n)\n";
    assert_eq!(
        inserts("unquote", "", [("pkg/a.py", donor, false)]),
        ["from pkg.compat import unquote"]
    );
}

#[test]
fn a_definition_is_imported_from_its_module_but_never_from_the_tests() {
    let donor = "async  def clean(s):\n    return s.strip()\n";
    assert_eq!(
        inserts("clean", "", [("src/pkg/utils.py", donor, false)]),
        ["from pkg.utils import clean"]
    );
    assert!(inserts("clean", "", [("tests/helpers.py", donor, true)]).is_empty());
}

#[test]
fn a_name_inside_a_docstring_or_an_indented_block_is_no_binding() {
    let donor = "\"\"\"Usage:\nlogger = something\n\"\"\"\n\ndef f():\n    logger = 1\n";
    assert!(inserts("logger", "", [("a.py", donor, false)]).is_empty());
}

#[test]
fn an_assignment_whose_import_cannot_be_found_is_not_offered() {
    let donor = "logger = make_logger('x')\n";
    assert!(inserts("logger", "", [("a.py", donor, false)]).is_empty());
}

#[test]
fn a_module_binds_a_name_it_imports_assigns_defines_or_declares_global() {
    assert!(binds(SPARK, "logger"));
    assert!(binds(REGISTER, "six"));
    assert!(binds(REGISTER, "Register"));
    assert!(binds("def f():\n    global cache\n", "cache"));
    assert!(!binds(REGISTER, "logger"));
    assert!(!binds(REGISTER, "OrderedDict"), "only under try, indented");
}

#[test]
fn bindings_go_after_the_last_import_before_the_first_definition() {
    assert_eq!(import_end(REGISTER), 12);
}

#[test]
fn with_no_import_bindings_go_after_the_docstring_and_leading_comments() {
    assert_eq!(
        import_end("#!/usr/bin/env python\n\"\"\"Doc.\"\"\"\nX = 1\n"),
        2
    );
    assert_eq!(import_end("# a comment\n\ndef f():\n    pass\n"), 2);
}

#[test]
fn a_parenthesised_import_ends_at_its_closing_line() {
    assert_eq!(import_end("from a import (\n    b,\n    c,\n)\nX = 1\n"), 4);
}

#[test]
fn an_insertion_is_anchored_on_the_fewest_unique_lines_above_it() {
    let text = "import a\nimport b\n\nx = 1\n";
    assert_eq!(
        insert_at(text, 2, "import c"),
        Some(("import b".to_string(), "import b\nimport c".to_string()))
    );
}

#[test]
fn an_insertion_at_the_top_is_anchored_below_it() {
    assert_eq!(
        insert_at("def f():\n    pass\n", 0, "import c"),
        Some(("def f():".to_string(), "import c\n\n\ndef f():".to_string()))
    );
}

#[test]
fn a_module_path_is_read_from_its_file() {
    assert_eq!(module_of("pkg/sub/__init__.py").as_deref(), Some("pkg.sub"));
    assert_eq!(module_of("src/pkg/a.py").as_deref(), Some("pkg.a"));
    assert_eq!(module_of("my-scripts/a.py"), None);
}
