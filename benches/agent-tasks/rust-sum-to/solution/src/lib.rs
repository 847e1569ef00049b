/// 1 + 2 + ... + n.
pub fn sum_to(n: u64) -> u64 {
    (1..=n).sum()
}
