//! Form-encoded parameters with Stripe's bracket syntax: `created[gte]=1`, `expand[]=a`,
//! `payment[payment_intent]=pi_1`, `metadata[k]=v`. Kept as ordered pairs.

use super::errors::ApiErr;

/// Decoded `key=value` pairs, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Params {
    pairs: Vec<(String, String)>,
}

impl Params {
    /// Parses a query string or an `application/x-www-form-urlencoded` body.
    pub fn parse(raw: &[u8]) -> Params {
        Params {
            pairs: form_urlencoded::parse(raw).into_owned().collect(),
        }
    }

    pub fn pairs(&self) -> &[(String, String)] {
        &self.pairs
    }

    /// The last value of `name` (Stripe takes the last one).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of an array parameter: `expand[]=a&expand[]=b` (also `expand[0]=a`).
    pub fn all(&self, name: &str) -> Vec<&str> {
        let prefix = format!("{name}[");
        self.pairs
            .iter()
            .filter(|(k, _)| {
                k.strip_prefix(&prefix)
                    .and_then(|rest| rest.strip_suffix(']'))
                    .is_some_and(|inner| {
                        inner.is_empty() || inner.bytes().all(|b| b.is_ascii_digit())
                    })
            })
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// The entries of a hash parameter: `metadata[a]=1` gives `("a", "1")`.
    pub fn hash(&self, name: &str) -> Vec<(&str, &str)> {
        let prefix = format!("{name}[");
        self.pairs
            .iter()
            .filter_map(|(k, v)| {
                let inner = k.strip_prefix(&prefix)?.strip_suffix(']')?;
                (!inner.is_empty() && !inner.contains('[')).then_some((inner, v.as_str()))
            })
            .collect()
    }

    /// An integer parameter, 400 if it is not one.
    pub fn int(&self, name: &str) -> Result<Option<i64>, ApiErr> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => v
                .parse::<i64>()
                .map(Some)
                .map_err(|_| ApiErr::bad_integer(name, v)),
        }
    }

    /// `limit`: 1..=100, default 10.
    pub fn limit(&self) -> Result<usize, ApiErr> {
        let Some(raw) = self.get("limit") else {
            return Ok(10);
        };
        let n = raw
            .parse::<i64>()
            .map_err(|_| ApiErr::bad_integer("limit", raw))?;
        if n < 1 {
            return Err(
                ApiErr::invalid("This value must be greater than or equal to 1.").param("limit"),
            );
        }
        if n > 100 {
            return Err(
                ApiErr::invalid("This value must be less than or equal to 100.").param("limit"),
            );
        }
        Ok(n as usize)
    }

    /// A timestamp filter: `name=<ts>` or any of `name[gt|gte|lt|lte]=<ts>`.
    pub fn range(&self, name: &str) -> Result<Option<Range>, ApiErr> {
        let mut range = Range::default();
        let mut any = false;
        if let Some(v) = self.int(name)? {
            range.eq = Some(v);
            any = true;
        }
        for op in ["gt", "gte", "lt", "lte"] {
            let key = format!("{name}[{op}]");
            if let Some(v) = self.int(&key)? {
                any = true;
                match op {
                    "gt" => range.gt = Some(v),
                    "gte" => range.gte = Some(v),
                    "lt" => range.lt = Some(v),
                    _ => range.lte = Some(v),
                }
            }
        }
        Ok(any.then_some(range))
    }
}

/// A timestamp range filter; all given bounds must hold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Range {
    pub eq: Option<i64>,
    pub gt: Option<i64>,
    pub gte: Option<i64>,
    pub lt: Option<i64>,
    pub lte: Option<i64>,
}

impl Range {
    pub fn contains(&self, t: i64) -> bool {
        self.eq.is_none_or(|v| t == v)
            && self.gt.is_none_or(|v| t > v)
            && self.gte.is_none_or(|v| t >= v)
            && self.lt.is_none_or(|v| t < v)
            && self.lte.is_none_or(|v| t <= v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_arrays_and_hashes() {
        let p = Params::parse(
            b"created%5Bgte%5D=10&created[lt]=20&expand[]=data.payments&expand%5B%5D=x&payment[payment_intent]=pi_1&metadata[ticket]=T-1&limit=5",
        );
        assert_eq!(p.all("expand"), vec!["data.payments", "x"]);
        assert_eq!(p.get("payment[payment_intent]"), Some("pi_1"));
        assert_eq!(p.hash("metadata"), vec![("ticket", "T-1")]);
        let r = p.range("created").expect("valid").expect("present");
        assert!(r.contains(10) && r.contains(19) && !r.contains(20) && !r.contains(9));
        assert_eq!(p.limit().expect("valid"), 5);
        assert_eq!(p.range("due_date").expect("valid"), None);
    }

    #[test]
    fn bad_values_are_400() {
        assert_eq!(
            Params::parse(b"limit=101").limit().map_err(|e| e.status),
            Err(400)
        );
        assert_eq!(
            Params::parse(b"limit=0").limit().map_err(|e| e.status),
            Err(400)
        );
        assert_eq!(
            Params::parse(b"limit=x").limit().map_err(|e| e.status),
            Err(400)
        );
        assert_eq!(Params::parse(b"").limit().ok(), Some(10));
        let err = Params::parse(b"created[gte]=soon").range("created");
        assert_eq!(
            err.map_err(|e| e.param),
            Err(Some("created[gte]".to_string()))
        );
    }
}
