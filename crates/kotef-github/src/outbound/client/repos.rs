//! The repository and who may act on it: the login kotef acts as, a repository's facts, a
//! user's permission (cached), a file's content, an issue, and a workflow dispatch.

use super::conditional::FileContent;
use super::*;

impl GitHub {
    /// The login kotef acts as: `GET /user` for a token, `<slug>[bot]` for an App.
    pub async fn own_login(&self) -> Result<String, GitHubError> {
        #[derive(Deserialize)]
        struct Me {
            #[serde(default)]
            login: Option<String>,
            #[serde(default)]
            slug: Option<String>,
        }
        match &self.inner.mode {
            Mode::Token { .. } => {
                let me: Me = self.send(None, Method::Get, "/user", None).await?;
                Ok(me.login.unwrap_or_default())
            }
            Mode::App { .. } => {
                let me: Me = self.send(None, Method::Get, "/app", None).await?;
                Ok(format!("{}[bot]", me.slug.unwrap_or_default()))
            }
        }
    }

    pub async fn repository(&self, repo: &RepoName) -> Result<RepoInfo, GitHubError> {
        self.send(Some(repo), Method::Get, &Self::repo_path(repo), None)
            .await
    }

    /// `login`'s role on `repo` (cached for a minute); a 404 means no access.
    pub async fn permission(
        &self,
        repo: &RepoName,
        login: &str,
    ) -> Result<Permission, GitHubError> {
        let key = (repo.clone(), login.to_ascii_lowercase());
        if let Ok(cache) = self.inner.permissions.lock() {
            if let Some((p, at)) = cache.get(&key) {
                if at.elapsed() < self.inner.permission_ttl {
                    return Ok(*p);
                }
            }
        }
        #[derive(Deserialize)]
        struct Answer {
            #[serde(default)]
            permission: Option<String>,
            #[serde(default)]
            role_name: Option<String>,
        }
        let path = format!(
            "{}/collaborators/{}/permission",
            Self::repo_path(repo),
            path_segment(login)
        );
        let p = match self
            .send::<Answer>(Some(repo), Method::Get, &path, None)
            .await
        {
            Ok(a) => {
                let by_role = a.role_name.as_deref().map(Permission::parse);
                let by_perm = a.permission.as_deref().map(Permission::parse);
                match (by_role, by_perm) {
                    (Some(r), _) if r != Permission::None => r,
                    (_, Some(p)) => p,
                    _ => Permission::None,
                }
            }
            Err(e) if e.status() == Some(404) => Permission::None,
            Err(e) => return Err(e),
        };
        if let Ok(mut cache) = self.inner.permissions.lock() {
            if cache.len() > 10_000 {
                cache.clear();
            }
            cache.insert(key, (p, Instant::now()));
        }
        Ok(p)
    }

    /// The text of `path` on `git_ref` through the contents API, `None` when it is not there.
    pub async fn file_content(
        &self,
        repo: &RepoName,
        path: &str,
        git_ref: &str,
    ) -> Result<Option<String>, GitHubError> {
        let url = Self::contents_path(repo, path, git_ref);
        let c: FileContent = match self.send(Some(repo), Method::Get, &url, None).await {
            Ok(c) => c,
            Err(e) if e.status() == Some(404) => return Ok(None),
            Err(e) => return Err(e),
        };
        c.text(&url).map(Some)
    }

    /// An issue or pull request by number.
    pub async fn issue(
        &self,
        repo: &RepoName,
        number: IssueNumber,
    ) -> Result<IssueInfo, GitHubError> {
        let path = format!("{}/issues/{}", Self::repo_path(repo), number);
        self.send(Some(repo), Method::Get, &path, None).await
    }

    /// Starts a `workflow_dispatch` run of `workflow` (a file name such as `kotef.yml`, or
    /// its numeric id) on `git_ref` with string `inputs`.
    pub async fn dispatch_workflow(
        &self,
        repo: &RepoName,
        workflow: &str,
        git_ref: &str,
        inputs: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), GitHubError> {
        let path = format!(
            "{}/actions/workflows/{}/dispatches",
            Self::repo_path(repo),
            path_segment(workflow)
        );
        let body = serde_json::json!({ "ref": git_ref, "inputs": inputs });
        match &self.inner.mode {
            // Its own short-lived token: the API token has no `actions` permission.
            Mode::App { .. } => {
                let token = self.installation_token(repo, TokenScope::Dispatch).await?;
                let crab = self.token_client(&token)?;
                self.send_with::<serde_json::Value>(
                    &crab,
                    Method::Post,
                    Replay::of(Method::Post),
                    &path,
                    Some(&body),
                )
                .await?;
            }
            Mode::Token { .. } => {
                self.send::<serde_json::Value>(Some(repo), Method::Post, &path, Some(&body))
                    .await?;
            }
        }
        Ok(())
    }
}
