//! Lists read with optional expansions: the expansions a restricted key may not read
//! (a customer or a payment method it has no permission for) are dropped and the list is
//! read again without them, so a key short of one permission loses what that expansion
//! adds (the wrong card's dates, say), never the list.

use serde::de::DeserializeOwned;

use crate::source::progress::{Part, Progress};
use crate::stripe::models::HasId;
use crate::stripe::{Client, StripeError};

use super::list_with;

/// An `expand[]` path and the permissions it needs beyond the list's own.
pub(super) type Expansion = (&'static str, &'static [&'static str]);

/// Lists `path` with `base` and every expansion of `optional`; when Stripe refuses for a
/// missing permission that some expansions need, those are dropped (with a warning that
/// says what is lost) and the list is read again.
pub(super) async fn list_expanding<T>(
    client: &Client,
    path: &str,
    base: &[(&str, &str)],
    optional: &[Expansion],
    part: Part,
    progress: &dyn Progress,
) -> Result<Vec<T>, StripeError>
where
    T: DeserializeOwned + HasId + Send + 'static,
{
    let mut kept: Vec<Expansion> = optional.to_vec();
    loop {
        let query = base
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .chain(
                kept.iter()
                    .map(|(p, _)| ("expand[]".to_string(), p.to_string())),
            )
            .collect();
        match list_with::<T>(client, path, query, part, progress).await {
            Err(e) => {
                let Some(missing) = e.missing_permission().map(str::to_owned) else {
                    return Err(e);
                };
                let before = kept.len();
                kept.retain(|(_, needs)| !needs.contains(&missing.as_str()));
                if kept.len() == before {
                    return Err(e);
                }
                tracing::warn!(
                    error = %e,
                    path,
                    "read again without the expansions that need {missing}: what they add (the wrong card's customer, subscription or card dates) is not known"
                );
            }
            ok => return ok,
        }
    }
}
