//! Query strings the way Stripe's own libraries write them: bracketed names stay literal
//! (`created[gte]=1700000000`, `expand[]=data.payments`, `metadata[order_id]=6735`),
//! everything else is percent-encoded; repeated names repeat (`expand[]=a&expand[]=b`).

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// Builds an owned query list from borrowed pairs.
pub fn params<K: AsRef<str>, V: AsRef<str>>(
    pairs: impl IntoIterator<Item = (K, V)>,
) -> Vec<(String, String)> {
    pairs
        .into_iter()
        .map(|(k, v)| (k.as_ref().to_string(), v.as_ref().to_string()))
        .collect()
}

/// What a value or a path segment leaves as it is: RFC 3986's unreserved characters.
const VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// A name also keeps its brackets (`created[gte]`, `expand[]`).
const NAME: &AsciiSet = &VALUE.remove(b'[').remove(b']');

/// `a=1&created[gte]=5&expand[]=data.x`.
pub fn encode(query: &[(String, String)]) -> String {
    let mut out = String::new();
    for (i, (k, v)) in query.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        out.extend(utf8_percent_encode(k, NAME));
        out.push('=');
        out.extend(utf8_percent_encode(v, VALUE));
    }
    out
}

/// Percent-encodes a request path, keeping `/` (ids in paths come from data and user
/// input: they must not be able to add a query or leave the path).
pub fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for seg in path.split('/').enumerate() {
        if seg.0 > 0 {
            out.push('/');
        }
        out.extend(utf8_percent_encode(seg.1, VALUE));
    }
    out
}

/// Sets `name` to `value`, replacing an earlier value of that name.
pub fn set(query: &mut Vec<(String, String)>, name: &str, value: &str) {
    query.retain(|(k, _)| k != name);
    query.push((name.to_string(), value.to_string()));
}

/// The value of `name`, if present.
pub fn get<'a>(query: &'a [(String, String)], name: &str) -> Option<&'a str> {
    query
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_stay_literal_in_names() {
        let q = params([
            ("created[gte]", "1700000000"),
            ("expand[]", "data.payments"),
            ("expand[]", "data.customer"),
            ("limit", "100"),
        ]);
        assert_eq!(
            encode(&q),
            "created[gte]=1700000000&expand[]=data.payments&expand[]=data.customer&limit=100"
        );
    }

    #[test]
    fn values_are_percent_encoded() {
        let q = params([
            ("query", "email:'a+b@example.com'"),
            ("metadata[order id]", "x&y=z"),
        ]);
        assert_eq!(
            encode(&q),
            "query=email%3A%27a%2Bb%40example.com%27&metadata[order%20id]=x%26y%3Dz"
        );
        // Non-ASCII text goes as its UTF-8 bytes, upper-case hex; `~` stays.
        let q = params([("metadata[n\u{e9}]", "caf\u{e9} ~a*")]);
        assert_eq!(encode(&q), "metadata[n%C3%A9]=caf%C3%A9%20~a%2A");
    }

    #[test]
    fn paths_cannot_smuggle_a_query() {
        assert_eq!(encode_path("/v1/charges/ch_1"), "/v1/charges/ch_1");
        assert_eq!(
            encode_path("/v1/charges/ch_1?expand[]=x#y"),
            "/v1/charges/ch_1%3Fexpand%5B%5D%3Dx%23y"
        );
    }

    #[test]
    fn set_replaces() {
        let mut q = params([("limit", "10"), ("a", "b")]);
        set(&mut q, "limit", "100");
        assert_eq!(get(&q, "limit"), Some("100"));
        assert_eq!(q.len(), 2);
    }
}
