//! Paging: cursor lists (\`limit=100\`, \`starting_after\`) and search (\`page\`) as streams
//! or whole lists, and running independent requests concurrently in input order.

use super::*;

impl Client {
    /// Every item of a list endpoint, page by page (`limit=100`, `starting_after`, while
    /// `has_more`), as a stream. An error ends the stream after it is yielded. A caller's
    /// own `limit` or initial `starting_after` is respected.
    pub fn list<T>(
        &self,
        path: &str,
        query: &[(String, String)],
    ) -> BoxStream<'static, Result<T, StripeError>>
    where
        T: DeserializeOwned + HasId + Send + 'static,
    {
        struct State<T> {
            client: Client,
            path: String,
            query: Vec<(String, String)>,
            buffer: VecDeque<T>,
            /// None: no more pages. Some(cursor): fetch the page after `cursor`.
            next: Option<Option<String>>,
        }
        let mut base_query = query.to_vec();
        if query::get(&base_query, "limit").is_none() {
            query::set(&mut base_query, "limit", PAGE_LIMIT);
        }
        let first = query::get(&base_query, "starting_after").map(str::to_string);
        base_query.retain(|(k, _)| k != "starting_after");
        let state = State {
            client: self.clone(),
            path: path.to_string(),
            query: base_query,
            buffer: VecDeque::new(),
            next: Some(first),
        };
        stream::unfold(state, |mut st| async move {
            loop {
                if let Some(item) = st.buffer.pop_front() {
                    return Some((Ok(item), st));
                }
                let cursor = st.next.take()?;
                let mut q = st.query.clone();
                if let Some(c) = &cursor {
                    q.push(("starting_after".to_string(), c.clone()));
                }
                // A page after the first continues a chain: it waits in the foreground.
                let client = if cursor.is_some() {
                    st.client.foreground()
                } else {
                    st.client.clone()
                };
                match client.get::<List<T>>(&st.path, &q).await {
                    Ok(page) => {
                        // A page after X that holds X again would loop forever (or
                        // duplicate rows): refuse it rather than guess.
                        if let Some(c) = &cursor
                            && page.data.iter().any(|t| t.id() == c)
                        {
                            let error = StripeError::Decode {
                                path: st.path.clone(),
                                at: "data".to_string(),
                                detail: format!(
                                    "the page after '{c}' contains '{c}' again: the list did \
                                     not advance"
                                ),
                                request_id: None,
                            };
                            return Some((Err(error), st));
                        }
                        if page.has_more {
                            match page.data.last().map(|t| t.id().to_string()) {
                                Some(last) if !last.is_empty() => st.next = Some(Some(last)),
                                _ => tracing::warn!(
                                    path = %st.path,
                                    "Stripe said has_more but the page gave no id to continue from"
                                ),
                            }
                        }
                        st.buffer = page.data.into();
                    }
                    Err(e) => return Some((Err(e), st)),
                }
            }
        })
        .boxed()
    }

    /// All items of a list endpoint (see [`Client::list`]).
    pub async fn list_all<T>(
        &self,
        path: &str,
        query: &[(String, String)],
    ) -> Result<Vec<T>, StripeError>
    where
        T: DeserializeOwned + HasId + Send + 'static,
    {
        self.list(path, query).try_collect().await
    }

    /// Every result of a search endpoint (`/v1/customers/search`, ...), following
    /// `next_page` (sent back as `page`) while `has_more`, as a stream.
    pub fn search<T>(
        &self,
        path: &str,
        query: &[(String, String)],
    ) -> BoxStream<'static, Result<T, StripeError>>
    where
        T: DeserializeOwned + Send + 'static,
    {
        struct State<T> {
            client: Client,
            path: String,
            query: Vec<(String, String)>,
            buffer: VecDeque<T>,
            next: Option<Option<String>>,
        }
        let mut base_query = query.to_vec();
        if query::get(&base_query, "limit").is_none() {
            query::set(&mut base_query, "limit", PAGE_LIMIT);
        }
        let first = query::get(&base_query, "page").map(str::to_string);
        base_query.retain(|(k, _)| k != "page");
        let state = State {
            client: self.clone(),
            path: path.to_string(),
            query: base_query,
            buffer: VecDeque::new(),
            next: Some(first),
        };
        stream::unfold(state, |mut st| async move {
            loop {
                if let Some(item) = st.buffer.pop_front() {
                    return Some((Ok(item), st));
                }
                let page_token = st.next.take()?;
                let mut q = st.query.clone();
                if let Some(p) = &page_token {
                    q.push(("page".to_string(), p.clone()));
                }
                match st.client.get::<List<T>>(&st.path, &q).await {
                    Ok(page) => {
                        if page.has_more {
                            match page.next_page.filter(|p| !p.is_empty()) {
                                Some(p) if page_token.as_ref() == Some(&p) => tracing::warn!(
                                    path = %st.path,
                                    "Stripe sent the same next_page again; stopping"
                                ),
                                Some(p) => st.next = Some(Some(p)),
                                None => tracing::warn!(
                                    path = %st.path,
                                    "Stripe said has_more but sent no next_page"
                                ),
                            }
                        }
                        st.buffer = page.data.into();
                    }
                    Err(e) => return Some((Err(e), st)),
                }
            }
        })
        .boxed()
    }

    /// All results of a search endpoint (see [`Client::search`]).
    pub async fn search_all<T>(
        &self,
        path: &str,
        query: &[(String, String)],
    ) -> Result<Vec<T>, StripeError>
    where
        T: DeserializeOwned + Send + 'static,
    {
        self.search(path, query).try_collect().await
    }

    /// Runs `f` over `items` with at most [`Client::max_concurrency`] in flight; results
    /// come back in input order (whatever order they completed in); the first error stops
    /// the rest.
    ///
    /// A finished item frees its slot at once (completion order), so one slow item (a
    /// payout with many pages of lines) never holds back the items behind it, as an
    /// in-order buffer would; the results are put back in input order at the end.
    pub async fn map_concurrent<I, F, Fut, R>(
        &self,
        items: I,
        mut f: F,
    ) -> Result<Vec<R>, StripeError>
    where
        I: IntoIterator,
        F: FnMut(I::Item) -> Fut,
        Fut: Future<Output = Result<R, StripeError>>,
    {
        let mut done: Vec<(usize, R)> = stream::iter(items.into_iter().enumerate())
            .map(|(i, item)| {
                let fut = f(item);
                async move { fut.await.map(|r| (i, r)) }
            })
            .buffer_unordered(self.max_concurrency())
            .try_collect()
            .await?;
        done.sort_unstable_by_key(|(i, _)| *i);
        Ok(done.into_iter().map(|(_, r)| r).collect())
    }
}
