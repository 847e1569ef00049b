use super::name_mutation::*;
use std::collections::BTreeSet;

/// The uses `project` makes of attributes after the receivers `stmt` reads.
fn uses_in(stmt: &str, project: &str) -> Uses {
    let mut uses = Uses::default();
    uses.count(project, &receivers(stmt));
    uses
}

/// The mutated statements of `stmt` with `uses` and `scope`, in order.
fn mutated(stmt: &str, uses: &Uses, scope: &Scope) -> Vec<String> {
    mutants(stmt, uses, scope)
        .into_iter()
        .map(|(m, _)| m)
        .collect()
}

const SITEMAP: &str = "
def parse(response):
    body = response.body
    return response.text, response.text, response.url, response.xpath('//a')
";

#[test]
fn an_attribute_is_swapped_for_those_read_after_the_same_name_commonest_first() {
    let stmt = "for url in sitemap_urls_from_robots(response.body):";
    let uses = uses_in(stmt, SITEMAP);
    assert_eq!(
        mutated(stmt, &uses, &Scope::default()),
        [
            "for url in sitemap_urls_from_robots(response.text):",
            "for url in sitemap_urls_from_robots(response.url):",
        ]
    );
}

#[test]
fn a_called_attribute_is_swapped_only_for_called_ones() {
    let stmt = "nodes = response.css('a')";
    let uses = uses_in(stmt, SITEMAP);
    assert_eq!(
        mutated(stmt, &uses, &Scope::default()),
        ["nodes = response.xpath('a')"]
    );
}

#[test]
fn a_longer_name_ending_like_a_receiver_is_not_counted() {
    let stmt = "x = response.body";
    let uses = uses_in(stmt, "old_response.text\nmy.response.url\n");
    assert_eq!(
        mutated(stmt, &uses, &Scope::default()),
        ["x = response.url"]
    );
}

#[test]
fn the_class_method_is_called_in_place_of_a_members() {
    let text = "class T:\n    def mkdir(self, p):\n        pass\n\n    def move(self, d):\n        self.fs.mkdir(d)\n";
    let scope = scope_at(text, 5);
    assert!(scope.methods.contains("mkdir"));
    assert_eq!(
        mutated("self.fs.mkdir(d)", &Uses::default(), &scope),
        ["self.mkdir(d)"]
    );
}

#[test]
fn a_variable_is_swapped_for_those_bound_before_it_nearest_first() {
    let text = "def f(a, b=1, *rest):\n    c = a + b\n    for d, e in rest:\n        return c\n";
    let scope = scope_at(text, 3);
    assert_eq!(scope.locals, ["d", "e", "c", "a", "b"]);
    assert_eq!(
        mutated("return c", &Uses::default(), &scope),
        ["return d", "return e", "return a"]
    );
}

#[test]
fn strings_keyword_arguments_and_calls_are_never_swapped() {
    let scope = Scope {
        locals: vec!["a".into(), "b".into()],
        methods: BTreeSet::new(),
    };
    assert_eq!(
        mutated("f('a', a=b, b=a.x) # a", &Uses::default(), &scope),
        ["f('a', a=a, b=a.x) # a", "f('a', a=b, b=b.x) # a"]
    );
    assert!(mutated("a(1)", &Uses::default(), &scope).is_empty());
}

#[test]
fn a_statement_outside_any_function_has_no_variables() {
    let scope = scope_at("x = 1\ny = x\n", 1);
    assert!(scope.locals.is_empty());
}
