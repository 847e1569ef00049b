/// 1 + 2 + ... + n.
pub fn sum_to(n: u64) -> u64 {
    (1..n).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small() {
        assert_eq!(sum_to(3), 6);
    }

    #[test]
    fn zero() {
        assert_eq!(sum_to(0), 0);
    }
}
