//! Pull requests: their files and review comments, one by number or by head branch, and a
//! draft opened or updated.

use super::*;

impl GitHub {
    /// The files of a pull request's diff (at most 300).
    pub async fn pull_files(
        &self,
        repo: &RepoName,
        number: IssueNumber,
    ) -> Result<Vec<PullFile>, GitHubError> {
        let path = format!("{}/pulls/{}/files", Self::repo_path(repo), number);
        self.pages(repo, &path, 3).await
    }

    /// The review comments of a pull request, oldest first (at most 300).
    pub async fn pull_review_comments(
        &self,
        repo: &RepoName,
        number: IssueNumber,
    ) -> Result<Vec<PullReviewComment>, GitHubError> {
        let path = format!("{}/pulls/{}/comments", Self::repo_path(repo), number);
        self.pages(repo, &path, 3).await
    }

    pub async fn pull(
        &self,
        repo: &RepoName,
        number: IssueNumber,
    ) -> Result<PullInfo, GitHubError> {
        let path = format!("{}/pulls/{}", Self::repo_path(repo), number);
        self.send(Some(repo), Method::Get, &path, None).await
    }

    /// The open pull request whose head is `branch` of `repo`, if any.
    pub async fn find_pull_by_head(
        &self,
        repo: &RepoName,
        branch: &str,
    ) -> Result<Option<PullInfo>, GitHubError> {
        let path = format!(
            "{}/pulls?state=open&head={}",
            Self::repo_path(repo),
            encode_query(&format!("{}:{}", repo.owner, branch))
        );
        let pulls: Vec<PullInfo> = self.send(Some(repo), Method::Get, &path, None).await?;
        Ok(pulls.into_iter().find(|p| p.head.name == branch))
    }

    /// Opens a draft pull request from `head` into `base`, once: when the response is lost or
    /// GitHub answers that one already exists (422), the open pull request of `head` is
    /// adopted.
    pub async fn create_draft_pull(
        &self,
        repo: &RepoName,
        head: &str,
        base: &str,
        title: &str,
        body: &str,
    ) -> Result<PullInfo, GitHubError> {
        let path = format!("{}/pulls", Self::repo_path(repo));
        let req = serde_json::json!({
            "title": title, "head": head, "base": base, "body": body, "draft": true,
        });
        let (path, req) = (&path, &req);
        self.create_once(
            move || {
                Box::pin(async move {
                    match self
                        .send::<PullInfo>(Some(repo), Method::Post, path, Some(req))
                        .await
                    {
                        Err(e) if e.status() == Some(422) => {
                            match self.find_pull_by_head(repo, head).await? {
                                Some(pr) => Ok(pr),
                                None => Err(e),
                            }
                        }
                        other => other,
                    }
                })
            },
            move || Box::pin(async move { self.find_pull_by_head(repo, head).await }),
        )
        .await
    }

    pub async fn update_pull(
        &self,
        repo: &RepoName,
        number: u64,
        title: &str,
        body: &str,
    ) -> Result<(), GitHubError> {
        let path = format!("{}/pulls/{}", Self::repo_path(repo), number);
        self.send::<serde_json::Value>(
            Some(repo),
            Method::Patch,
            &path,
            Some(&serde_json::json!({ "title": title, "body": body })),
        )
        .await?;
        Ok(())
    }
}
