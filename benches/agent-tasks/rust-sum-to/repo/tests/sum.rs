use sum_to::sum_to;

#[test]
fn small() {
    assert_eq!(sum_to(3), 6);
}

#[test]
fn zero() {
    assert_eq!(sum_to(0), 0);
}
