//! Stripe-shaped error responses: `{"error": {"type", "code", "message", "param", "doc_url"}}`
//! with the HTTP status Stripe uses for each case.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

/// An error the fake answers with.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiErr {
    pub status: u16,
    pub kind: &'static str,
    pub code: Option<String>,
    pub message: String,
    pub param: Option<String>,
}

impl ApiErr {
    pub fn new(status: u16, kind: &'static str, message: impl Into<String>) -> Self {
        ApiErr {
            status,
            kind,
            code: None,
            message: message.into(),
            param: None,
        }
    }

    /// 400 `invalid_request_error`.
    pub fn invalid(message: impl Into<String>) -> Self {
        ApiErr::new(400, "invalid_request_error", message)
    }

    pub fn code(mut self, code: &str) -> Self {
        self.code = Some(code.to_string());
        self
    }

    pub fn param(mut self, param: &str) -> Self {
        self.param = Some(param.to_string());
        self
    }

    /// 404 `resource_missing` for a retrieve: "No such payout: 'po_x'".
    pub fn missing(noun: &str, id: &str) -> Self {
        ApiErr::new(
            404,
            "invalid_request_error",
            format!("No such {noun}: '{id}'"),
        )
        .code("resource_missing")
        .param("id")
    }

    /// 400 for a query/body parameter that is not an integer.
    pub fn bad_integer(param: &str, value: &str) -> Self {
        ApiErr::invalid(format!("Invalid integer: {value}"))
            .code("parameter_invalid_integer")
            .param(param)
    }

    /// 404 for an URL the fake does not serve (same wording as Stripe).
    pub fn unrecognized(method: &str, path: &str) -> Self {
        ApiErr::new(
            404,
            "invalid_request_error",
            format!(
                "Unrecognized request URL ({method}: {path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/."
            ),
        )
    }

    pub fn body(&self) -> Value {
        let mut err = Map::new();
        if let Some(code) = &self.code {
            err.insert("code".into(), json!(code));
            err.insert(
                "doc_url".into(),
                json!(format!(
                    "https://stripe.com/docs/error-codes/{}",
                    code.replace('_', "-")
                )),
            );
        }
        err.insert("message".into(), json!(self.message));
        if let Some(param) = &self.param {
            err.insert("param".into(), json!(param));
        }
        err.insert("type".into(), json!(self.kind));
        json!({ "error": Value::Object(err) })
    }
}

impl IntoResponse for ApiErr {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::BAD_REQUEST);
        (status, Json(self.body())).into_response()
    }
}
