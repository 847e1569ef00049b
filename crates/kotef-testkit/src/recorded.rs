//! One recorded run per test binary, for tests that each check one fact: the recording (start
//! a fake GitHub, send a webhook, wait for the final comment, copy out what it left) runs once
//! on a runtime of its own, and every `#[test]` reads the same plain-data result.

use std::future::Future;
use std::sync::OnceLock;

/// Runs `record` the first time it is asked for `cell` and keeps what it returns.
///
/// ```text
/// fn run() -> &'static Finished {
///     static RUN: OnceLock<Finished> = OnceLock::new();
///     kotef_testkit::recorded(&RUN, record)
/// }
/// #[test] fn there_is_one_sticky_comment() { assert_eq!(run().comments.len(), 1); }
/// ```
pub fn recorded<T, F, Fut>(cell: &'static OnceLock<T>, record: F) -> &'static T
where
    T: Send + Sync + 'static,
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future<Output = T>,
{
    cell.get_or_init(|| {
        std::thread::spawn(move || {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("a tokio runtime for the recording")
                .block_on(record())
        })
        .join()
        .expect("the recording finished without panicking")
    })
}
