//! Comments and reactions on issues and pull requests: a comment is created at most once
//! (a retried POST first looks for the comment it may already have made), updated in place,
//! listed, and reacted to.

use super::*;

#[derive(Debug, Deserialize)]
struct Created {
    id: u64,
    #[serde(default)]
    html_url: Option<String>,
}

/// Whether `theirs` is the comment `ours` would create: the same kotef marker line (the run's
/// id) when `ours` has one, else the same body.
fn same_comment(ours: &str, theirs: &str) -> bool {
    let first = |t: &str| {
        t.trim_start()
            .lines()
            .next()
            .unwrap_or_default()
            .to_string()
    };
    if first(ours).starts_with(crate::outbound::render::MARKER_PREFIX) {
        first(ours) == first(theirs)
    } else {
        ours == theirs
    }
}

impl GitHub {
    /// Creates a comment once: when the response to the POST is lost, the comment is looked
    /// for (by its kotef marker line, else its whole body) before the POST is sent again.
    pub async fn create_comment(
        &self,
        repo: &RepoName,
        number: IssueNumber,
        body: &str,
    ) -> Result<CommentRef, GitHubError> {
        let path = format!("{}/issues/{}/comments", Self::repo_path(repo), number);
        let request = serde_json::json!({ "body": body });
        let (path, request) = (&path, &request);
        self.create_once(
            move || {
                Box::pin(async move {
                    let c: Created = self
                        .send(Some(repo), Method::Post, path, Some(request))
                        .await?;
                    Ok(CommentRef {
                        id: c.id,
                        html_url: c.html_url,
                    })
                })
            },
            move || {
                Box::pin(async move {
                    let list = self.list_comments(repo, number).await?;
                    Ok(list
                        .into_iter()
                        .rev()
                        .find(|c| same_comment(body, c.body.as_deref().unwrap_or_default()))
                        .map(|c| CommentRef {
                            id: c.id,
                            html_url: c.html_url,
                        }))
                })
            },
        )
        .await
    }

    /// Sends a POST that creates something, once. After an error that GitHub may have applied
    /// anyway (a lost response, a 5xx), `existing` looks for the thing; only when it is not
    /// there is the POST sent again (within the retry policy).
    pub(super) async fn create_once<'a, T: 'a>(
        &'a self,
        post: impl Fn() -> BoxFuture<'a, Result<T, GitHubError>>,
        existing: impl Fn() -> BoxFuture<'a, Result<Option<T>, GitHubError>>,
    ) -> Result<T, GitHubError> {
        let policy = self.inner.policy;
        kotef_core::retry::run(&policy, "GitHub create", |_| async {
            match post().await {
                Err(e) if e.maybe_applied() => match existing().await {
                    Ok(Some(found)) => {
                        tracing::info!(error = %e, "the create was applied although its response was lost; adopting it");
                        Ok(found)
                    }
                    // Not applied: safe to send again.
                    Ok(None) => Err(Failure::retry(e, None)),
                    Err(look) => Err(Failure::fatal(look)),
                },
                other => other.map_err(Failure::fatal),
            }
        })
        .await
    }

    pub async fn update_comment(
        &self,
        repo: &RepoName,
        comment_id: u64,
        body: &str,
    ) -> Result<(), GitHubError> {
        let path = format!("{}/issues/comments/{}", Self::repo_path(repo), comment_id);
        self.send::<serde_json::Value>(
            Some(repo),
            Method::Patch,
            &path,
            Some(&serde_json::json!({ "body": body })),
        )
        .await?;
        Ok(())
    }

    /// Every comment of an issue or pull request, oldest first (at most 2000).
    pub async fn list_comments(
        &self,
        repo: &RepoName,
        number: IssueNumber,
    ) -> Result<Vec<IssueComment>, GitHubError> {
        let path = format!("{}/issues/{}/comments", Self::repo_path(repo), number);
        self.pages(repo, &path, MAX_PAGES).await
    }

    pub async fn react_to_issue(
        &self,
        repo: &RepoName,
        number: IssueNumber,
        reaction: Reaction,
    ) -> Result<(), GitHubError> {
        let path = format!("{}/issues/{}/reactions", Self::repo_path(repo), number);
        self.react(repo, &path, reaction).await
    }

    pub async fn react_to_comment(
        &self,
        repo: &RepoName,
        comment_id: u64,
        reaction: Reaction,
    ) -> Result<(), GitHubError> {
        let path = format!(
            "{}/issues/comments/{}/reactions",
            Self::repo_path(repo),
            comment_id
        );
        self.react(repo, &path, reaction).await
    }

    /// Adds a reaction to a review comment on a pull request's diff.
    pub async fn react_to_review_comment(
        &self,
        repo: &RepoName,
        comment_id: u64,
        reaction: Reaction,
    ) -> Result<(), GitHubError> {
        let path = format!(
            "{}/pulls/comments/{}/reactions",
            Self::repo_path(repo),
            comment_id
        );
        self.react(repo, &path, reaction).await
    }

    /// POSTs a reaction to `path`. GitHub answers a repeated reaction with the existing one,
    /// so it is safe to send again.
    async fn react(
        &self,
        repo: &RepoName,
        path: &str,
        reaction: Reaction,
    ) -> Result<(), GitHubError> {
        self.send_replay::<serde_json::Value>(
            Some(repo),
            Method::Post,
            Replay::Safe,
            path,
            Some(&serde_json::json!({ "content": reaction.as_str() })),
        )
        .await?;
        Ok(())
    }
}
