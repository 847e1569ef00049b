//! Reading a repository file through the contents API, plainly ([`GitHub::file_content`]) or
//! conditionally: with the `ETag` of the last read, an unchanged file is answered
//! `304 Not Modified`, which GitHub does not count against the rate limit
//! ([`GitHub::file_if_changed`]).

use super::*;

/// The contents API's answer for a file.
#[derive(Deserialize)]
pub(super) struct FileContent {
    #[serde(default)]
    content: String,
    #[serde(default)]
    encoding: String,
}

impl FileContent {
    /// The file's text (base64 as GitHub sends it, wrapped or not); `url` names the call in
    /// an error.
    pub(super) fn text(self, url: &str) -> Result<String, GitHubError> {
        if self.encoding != "base64" {
            return Err(GitHubError::Decode {
                method: "GET".into(),
                path: url.into(),
                message: format!("content encoded as `{}`, not base64", self.encoding),
            });
        }
        use base64::Engine as _;
        let compact: String = self.content.split_whitespace().collect();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(compact)
            .map_err(|e| GitHubError::Decode {
                method: "GET".into(),
                path: url.into(),
                message: e.to_string(),
            })?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// What a conditional read found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileRead {
    /// The file, with the `ETag` to send next time (when GitHub gave one).
    Found { text: String, etag: Option<String> },
    /// The file is as it was when its `ETag` was given.
    NotModified,
    /// No such file on that ref.
    Missing,
}

impl GitHub {
    pub(super) fn contents_path(repo: &RepoName, path: &str, git_ref: &str) -> String {
        format!(
            "{}/contents/{}?ref={}",
            Self::repo_path(repo),
            encode_query(path),
            encode_query(git_ref)
        )
    }

    /// `path` on `git_ref`, unless it is unchanged since the read that gave `etag`. One
    /// attempt (the caller keeps what it had when this fails).
    pub async fn file_if_changed(
        &self,
        repo: &RepoName,
        path: &str,
        git_ref: &str,
        etag: Option<&str>,
    ) -> Result<FileRead, GitHubError> {
        use axum::http::header::{HeaderMap, HeaderValue, ETAG, IF_NONE_MATCH};
        let url = Self::contents_path(repo, path, git_ref);
        let crab = self.crab_for(Some(repo)).await?;
        let mut headers = HeaderMap::new();
        if let Some(v) = etag.and_then(|e| HeaderValue::from_str(e).ok()) {
            headers.insert(IF_NONE_MATCH, v);
        }
        let transport = |message: String| GitHubError::Transport {
            method: "GET".into(),
            path: url.clone(),
            message,
        };
        let resp = crab
            ._get_with_headers(url.as_str(), Some(headers))
            .await
            .map_err(|e| transport(e.to_string()))?;
        let status = resp.status().as_u16();
        self.note_budget(&url, status, resp.headers());
        let etag = resp
            .headers()
            .get(ETAG)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let body = crab
            .body_to_string(resp)
            .await
            .map_err(|e| transport(e.to_string()))?;
        match status {
            304 => Ok(FileRead::NotModified),
            404 => Ok(FileRead::Missing),
            200..=299 => {
                let c: FileContent =
                    serde_json::from_str(&body).map_err(|e| GitHubError::Decode {
                        method: "GET".into(),
                        path: url.clone(),
                        message: e.to_string(),
                    })?;
                Ok(FileRead::Found {
                    text: c.text(&url)?,
                    etag,
                })
            }
            _ => Err(GitHubError::Status {
                method: "GET".into(),
                path: url.clone(),
                status,
                message: crate::text::truncate_chars(&body, 300),
            }),
        }
    }
}
