//! Paging: cursor lists (\`limit=100\`, \`starting_after\`) and search (\`page\`) as streams
//! or whole lists, and running independent requests concurrently in input order.
//!
//! Both kinds of endpoint page through one stream ([`Client::pages`]); what differs is the
//! [`Cursor`]: which query parameter carries it, where the next one comes from, and
//! whether a page after the first waits in the foreground lane.

use super::*;

/// How a paged endpoint says where its next page starts: the one thing list and search
/// endpoints page differently.
trait Cursor<T> {
    /// The query parameter the cursor is sent in (a caller's own is the first page's).
    const PARAM: &'static str;
    /// True when a page after the first continues a chain, so waits in the foreground.
    const CHAINED_IN_FOREGROUND: bool;
    /// The cursor of the page after `page` (fetched at `at`, None for the first page):
    /// None when there is no more to read, an error when the page cannot be followed.
    fn next(path: &str, at: Option<&str>, page: &List<T>) -> Result<Option<String>, StripeError>;
}

/// List endpoints: `starting_after=<the last id of the page>`.
struct StartingAfter;

impl<T: HasId> Cursor<T> for StartingAfter {
    const PARAM: &'static str = "starting_after";
    const CHAINED_IN_FOREGROUND: bool = true;

    fn next(path: &str, at: Option<&str>, page: &List<T>) -> Result<Option<String>, StripeError> {
        // A page after X that holds X again would loop forever (or duplicate rows):
        // refuse it rather than guess.
        if let Some(c) = at
            && page.data.iter().any(|t| t.id() == c)
        {
            return Err(StripeError::Decode {
                path: path.to_string(),
                at: "data".to_string(),
                detail: format!(
                    "the page after '{c}' contains '{c}' again: the list did not advance"
                ),
                request_id: None,
            });
        }
        if !page.has_more {
            return Ok(None);
        }
        match page.data.last().map(|t| t.id().to_string()) {
            Some(last) if !last.is_empty() => Ok(Some(last)),
            _ => {
                tracing::warn!(
                    path = %path,
                    "Stripe said has_more but the page gave no id to continue from"
                );
                Ok(None)
            }
        }
    }
}

/// Search endpoints: `page=<the page's next_page>`.
struct NextPage;

impl<T> Cursor<T> for NextPage {
    const PARAM: &'static str = "page";
    const CHAINED_IN_FOREGROUND: bool = false;

    fn next(path: &str, at: Option<&str>, page: &List<T>) -> Result<Option<String>, StripeError> {
        if !page.has_more {
            return Ok(None);
        }
        match page.next_page.as_deref().filter(|p| !p.is_empty()) {
            Some(p) if at == Some(p) => {
                tracing::warn!(
                    path = %path,
                    "Stripe sent the same next_page again; stopping"
                );
                Ok(None)
            }
            Some(p) => Ok(Some(p.to_string())),
            None => {
                tracing::warn!(path = %path, "Stripe said has_more but sent no next_page");
                Ok(None)
            }
        }
    }
}

/// What a whole listing returned: every item, and the `Request-Id` of each page that had
/// one (for a trail of the requests made; never a header or key beyond that id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed<T> {
    pub items: Vec<T>,
    pub request_ids: Vec<String>,
}

/// One page: its items, the cursor of the next page (None: the last), its Request-Id.
type Page<T> = (Vec<T>, Option<String>, Option<String>);

impl Client {
    /// The query every page of a paged endpoint is sent with (`limit=100` unless the
    /// caller set a `limit`, the cursor taken out) and the first page's cursor (a caller's
    /// own).
    fn paging_query<T, C: Cursor<T>>(
        query: &[(String, String)],
    ) -> (Vec<(String, String)>, Option<String>) {
        let mut base_query = query.to_vec();
        if query::get(&base_query, "limit").is_none() {
            query::set(&mut base_query, "limit", PAGE_LIMIT);
        }
        let first = query::get(&base_query, C::PARAM).map(str::to_string);
        base_query.retain(|(k, _)| k != C::PARAM);
        (base_query, first)
    }

    /// The page of `path` at `cursor` (None: the first).
    async fn page<T, C>(
        &self,
        path: &str,
        base_query: &[(String, String)],
        cursor: Option<&str>,
    ) -> Result<Page<T>, StripeError>
    where
        T: DeserializeOwned,
        C: Cursor<T>,
    {
        let mut q = base_query.to_vec();
        if let Some(c) = cursor {
            q.push((C::PARAM.to_string(), c.to_string()));
        }
        let client = if C::CHAINED_IN_FOREGROUND && cursor.is_some() {
            self.foreground()
        } else {
            self.clone()
        };
        let (page, request_id) = client.get_traced::<List<T>>(path, &q).await?;
        let next = C::next(path, cursor, &page)?;
        Ok((page.data, next, request_id))
    }

    /// Every item of a paged endpoint, page by page (`limit=100` unless the caller set a
    /// `limit`, the cursor `C` while there is a next page), as a stream. A caller's own
    /// initial cursor is the first page's. An error ends the stream after it is yielded.
    fn pages<T, C>(
        &self,
        path: &str,
        query: &[(String, String)],
    ) -> BoxStream<'static, Result<T, StripeError>>
    where
        T: DeserializeOwned + Send + 'static,
        C: Cursor<T> + 'static,
    {
        struct State<T> {
            client: Client,
            path: String,
            query: Vec<(String, String)>,
            buffer: VecDeque<T>,
            /// None: no more pages. Some(cursor): fetch the page at `cursor`.
            next: Option<Option<String>>,
        }
        let (base_query, first) = Self::paging_query::<T, C>(query);
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
                match st
                    .client
                    .page::<T, C>(&st.path, &st.query, cursor.as_deref())
                    .await
                {
                    Ok((items, next, _)) => {
                        st.next = next.map(Some);
                        st.buffer = items.into();
                    }
                    Err(e) => return Some((Err(e), st)),
                }
            }
        })
        .boxed()
    }

    /// Every page of a paged endpoint, collected with each page's Request-Id.
    async fn all_pages<T, C>(
        &self,
        path: &str,
        query: &[(String, String)],
    ) -> Result<Listed<T>, StripeError>
    where
        T: DeserializeOwned,
        C: Cursor<T>,
    {
        let (base_query, mut cursor) = Self::paging_query::<T, C>(query);
        let mut out = Listed {
            items: Vec::new(),
            request_ids: Vec::new(),
        };
        loop {
            let (items, next, request_id) = self
                .page::<T, C>(path, &base_query, cursor.as_deref())
                .await?;
            out.items.extend(items);
            out.request_ids.extend(request_id);
            match next {
                Some(n) => cursor = Some(n),
                None => return Ok(out),
            }
        }
    }

    /// [`Client::list_all`], with the Request-Id of each page.
    pub async fn list_all_traced<T>(
        &self,
        path: &str,
        query: &[(String, String)],
    ) -> Result<Listed<T>, StripeError>
    where
        T: DeserializeOwned + HasId,
    {
        self.all_pages::<T, StartingAfter>(path, query).await
    }

    /// [`Client::search_all`], with the Request-Id of each page.
    pub async fn search_all_traced<T>(
        &self,
        path: &str,
        query: &[(String, String)],
    ) -> Result<Listed<T>, StripeError>
    where
        T: DeserializeOwned,
    {
        self.all_pages::<T, NextPage>(path, query).await
    }

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
        self.pages::<T, StartingAfter>(path, query)
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
        Ok(self.list_all_traced(path, query).await?.items)
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
        self.pages::<T, NextPage>(path, query)
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
        Ok(self.search_all_traced(path, query).await?.items)
    }

    /// Runs `f` over `items` with [`Client::in_flight`] of them in flight; results come
    /// back in input order (whatever order they completed in); the first error stops the
    /// rest.
    ///
    /// A finished item frees its slot at once (completion order), so one slow item (a
    /// payout with many pages of lines) never holds back the items behind it, as an
    /// in-order buffer would; the results are put back in input order at the end. The
    /// width is read again each time a slot frees: it follows the measured latency and
    /// the rate (Little's law), so a slow Stripe gets more requests in flight and a
    /// rate-limited one fewer.
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
        let mut items = items.into_iter().enumerate();
        let mut running = stream::FuturesUnordered::new();
        let mut done: Vec<(usize, R)> = Vec::new();
        loop {
            while running.len() < self.in_flight() {
                let Some((i, item)) = items.next() else { break };
                let fut = f(item);
                running.push(async move { fut.await.map(|r| (i, r)) });
            }
            match running.next().await {
                Some(result) => done.push(result?),
                None => break,
            }
        }
        done.sort_unstable_by_key(|(i, _)| *i);
        Ok(done.into_iter().map(|(_, r)| r).collect())
    }
}
