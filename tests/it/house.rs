//! The house keeps its rooms small: no source file holds more than [`LIMIT`] lines of
//! non-test code (all its lines but those of its `#[cfg(test)]` modules, wherever they
//! sit: a small scanner that skips comments, strings and character literals finds each
//! module's closing brace). Test-only files (`tests.rs`, `*_tests.rs`, `testdata.rs`) do
//! not count, and a data table may opt out by saying so in its first line
//! (`//! The ... data table ...`).

use std::path::Path;

/// The most non-test lines one file may hold.
const LIMIT: usize = 600;

/// Files over the limit that another change is splitting, with the most lines each may
/// hold until then: an entry may only shrink, and goes when its file is under the limit.
const SPLITTING: &[(&str, usize)] = &[];

/// True for a file that holds tests or test rows only.
fn is_test_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "tests.rs" || name == "testdata.rs" || name.ends_with("_tests.rs")
}

/// True when the file's first line declares it a data table.
fn is_data_table(text: &str) -> bool {
    text.lines()
        .next()
        .is_some_and(|l| l.starts_with("//!") && l.contains("data table"))
}

/// The text with every comment and every string and character literal blanked to spaces
/// (line breaks kept), so that braces, `#` and `;` left in it are code. Handles nested
/// block comments, escapes, raw strings (`r#"..."#`, `br"..."`, `cr"..."`), byte and
/// C strings, and tells a character literal (`'{'`, `'\''`) from a lifetime (`'a`).
fn code_only(text: &str) -> Vec<u8> {
    let src = text.as_bytes();
    let mut out = src.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut out[from..to.min(src.len())] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    let mut i = 0;
    while i < src.len() {
        let rest = &src[i..];
        if rest.starts_with(b"//") {
            let end = rest
                .iter()
                .position(|&b| b == b'\n')
                .map_or(src.len(), |n| i + n);
            blank(&mut out, i, end);
            i = end;
        } else if rest.starts_with(b"/*") {
            let (mut depth, mut j) = (1usize, i + 2);
            while j < src.len() && depth > 0 {
                if src[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if src[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if src[i] == b'"' {
            let mut j = i + 1;
            while j < src.len() && src[j] != b'"' {
                j += if src[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i, j + 1);
            i = j + 1;
        } else if src[i] == b'r' && raw_string_start(src, i, ident) {
            let hashes = src[i + 1..].iter().take_while(|&&b| b == b'#').count();
            let open = i + 1 + hashes; // the opening quote
            let mut close = Vec::with_capacity(hashes + 1);
            close.push(b'"');
            close.extend(std::iter::repeat_n(b'#', hashes));
            let end = src[open + 1..]
                .windows(close.len())
                .position(|w| w == close.as_slice())
                .map_or(src.len(), |n| open + 1 + n + close.len());
            blank(&mut out, i, end);
            i = end;
        } else if src[i] == b'\'' {
            i = match char_literal_end(text, i) {
                Some(end) => {
                    blank(&mut out, i, end);
                    end
                }
                None => i + 1, // a lifetime or a label
            };
        } else {
            i += 1;
        }
    }
    out
}

/// True when the `r` at `i` opens a raw string (`r"`, `r#"`, also after `b` or `c`), not
/// an identifier such as `bar` or a raw identifier such as `r#type`.
fn raw_string_start(src: &[u8], i: usize, ident: impl Fn(u8) -> bool) -> bool {
    let prefix_ok = match i.checked_sub(1).map(|p| src[p]) {
        None => true,
        Some(b'b' | b'c') => i < 2 || !ident(src[i - 2]),
        Some(p) => !ident(p),
    };
    let hashes = src[i + 1..].iter().take_while(|&&b| b == b'#').count();
    prefix_ok && src.get(i + 1 + hashes) == Some(&b'"')
}

/// The end (one past the closing quote) of the character literal opening at `i`, or `None`
/// when the quote starts a lifetime or a label.
fn char_literal_end(text: &str, i: usize) -> Option<usize> {
    let src = text.as_bytes();
    if src.get(i + 1) == Some(&b'\\') {
        // An escape: '\n', '\'', '\\', '\x7f', '\u{..}'.
        let mut j = i + 3;
        while j < src.len() && src[j] != b'\'' && src[j] != b'\n' {
            j += 1;
        }
        return (src.get(j) == Some(&b'\'')).then_some(j + 1);
    }
    let c = text.get(i + 1..)?.chars().next()?;
    let after = i + 1 + c.len_utf8();
    (c != '\'' && src.get(after) == Some(&b'\'')).then_some(after + 1)
}

/// The byte ranges of the `#[cfg(test)]` modules in `code` (from [`code_only`]): from the
/// attribute to the module's closing brace (or its `;` for a module in its own file).
fn test_modules(code: &[u8]) -> Vec<(usize, usize)> {
    const ATTR: &[u8] = b"#[cfg(test)]";
    let skip_ws = |mut j: usize| {
        while j < code.len() && code[j].is_ascii_whitespace() {
            j += 1;
        }
        j
    };
    let word_at = |j: usize, w: &[u8]| {
        code[j..].starts_with(w)
            && code
                .get(j + w.len())
                .is_none_or(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
    };
    let mut found = Vec::new();
    let mut i = 0;
    while let Some(n) = code[i..].windows(ATTR.len()).position(|w| w == ATTR) {
        let start = i + n;
        let mut j = skip_ws(start + ATTR.len());
        // Further attributes on the same item.
        while code.get(j) == Some(&b'#') && code.get(j + 1) == Some(&b'[') {
            j = matching(code, j + 1, b'[', b']').map_or(code.len(), |e| e + 1);
            j = skip_ws(j);
        }
        if word_at(j, b"pub") {
            j = skip_ws(j + 3);
            if code.get(j) == Some(&b'(') {
                j = skip_ws(matching(code, j, b'(', b')').map_or(code.len(), |e| e + 1));
            }
        }
        let end = if word_at(j, b"mod") {
            j = skip_ws(j + 3);
            while j < code.len() && (code[j].is_ascii_alphanumeric() || code[j] == b'_') {
                j += 1;
            }
            j = skip_ws(j);
            match code.get(j) {
                Some(b';') => Some(j + 1),
                Some(b'{') => matching(code, j, b'{', b'}').map(|e| e + 1),
                _ => None,
            }
        } else {
            None
        };
        match end {
            Some(end) => {
                found.push((start, end));
                i = end;
            }
            None => i = start + ATTR.len(),
        }
    }
    found
}

/// The index of the bracket closing the one opening at `open`.
fn matching(code: &[u8], open: usize, left: u8, right: u8) -> Option<usize> {
    let mut depth = 0usize;
    for (j, &b) in code.iter().enumerate().skip(open) {
        if b == left {
            depth += 1;
        } else if b == right {
            depth -= 1;
            if depth == 0 {
                return Some(j);
            }
        }
    }
    None
}

/// The file's lines less those of its `#[cfg(test)]` modules (each from its attribute's
/// line to its closing brace's line), wherever in the file they sit.
fn non_test_lines(text: &str) -> usize {
    let code = code_only(text);
    let line_of = |at: usize| code[..at].iter().filter(|&&b| b == b'\n').count();
    let test: usize = test_modules(&code)
        .into_iter()
        .map(|(start, end)| line_of(end.saturating_sub(1)) - line_of(start) + 1)
        .sum();
    text.lines().count() - test
}

/// The product's source files (the root package's `src` and each member crate's `src`)
/// with their non-test line counts, test-only files and data tables left out.
fn counted_files() -> Vec<(String, usize)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![root.join("src")];
    for krate in std::fs::read_dir(root.join("crates")).expect("crates dir") {
        dirs.push(krate.expect("entry").path().join("src"));
    }
    let mut out = Vec::new();
    for dir in dirs {
        for path in crate::support::rust_files(&dir) {
            if is_test_file(&path) {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("source");
            if is_data_table(&text) {
                continue;
            }
            let rel = path
                .strip_prefix(root)
                .expect("under the root")
                .to_string_lossy()
                .replace('\\', "/");
            out.push((rel, non_test_lines(&text)));
        }
    }
    out
}

#[test]
fn no_source_file_holds_more_than_six_hundred_lines_of_non_test_code() {
    let over: Vec<String> = counted_files()
        .into_iter()
        .filter(|(path, lines)| {
            let ceiling = SPLITTING
                .iter()
                .find(|(p, _)| p == path)
                .map_or(LIMIT, |(_, c)| *c);
            *lines > ceiling
        })
        .map(|(path, lines)| format!("{path}: {lines} non-test lines"))
        .collect();
    assert!(
        over.is_empty(),
        "files over {LIMIT} lines of non-test code (split them along a seam, or mark a data \
         table in its first line):\n{}",
        over.join("\n")
    );
}

#[test]
fn every_file_being_split_is_still_over_the_limit() {
    let counts = counted_files();
    let done: Vec<String> = SPLITTING
        .iter()
        .filter(|(path, _)| {
            counts
                .iter()
                .find(|(p, _)| p == path)
                .is_none_or(|(_, lines)| *lines <= LIMIT)
        })
        .map(|(path, _)| path.to_string())
        .collect();
    assert!(
        done.is_empty(),
        "split or gone, take them out of SPLITTING in tests/it/house.rs:\n{}",
        done.join("\n")
    );
}

#[test]
fn the_counter_skips_test_modules_only_and_honours_data_tables() {
    // A `#[cfg(test)]` function counts; a module in its own file goes with its attributes.
    let text = "//! A room.\nfn a() {}\n#[cfg(test)]\nfn helper() {}\nfn b() {}\n#[cfg(test)]\n#[path = \"x_tests.rs\"]\nmod tests;\nfn c() {}\n";
    assert_eq!(non_test_lines(text), 6);
    assert!(is_data_table("//! The decline data table.\n"));
    assert!(!is_data_table("//! A room.\n//! data table\n"));
    assert!(is_test_file(Path::new("a/b_tests.rs")));
    assert!(!is_test_file(Path::new("a/tests_b.rs")));
}

#[test]
fn a_test_module_in_the_middle_leaves_the_code_after_it_counted() {
    let text = "\
fn a() {}
#[cfg(test)]
mod tests {
    #[test]
    fn t() {
        let s = \"}}} not the end {\";
        let c = '}';
        let raw = r#\"\" } \"#;
        // a } in a comment
        /* and { in /* a nested */ block } */
        let b = b'{';
        fn l<'a>(x: &'a str) -> &'a str { x }
        let e = '\\'';
        let q = '\"';
    }
}
fn after() {
    let x = 1;
}
";
    // 19 lines; the module is lines 2..=16.
    assert_eq!(text.lines().count(), 19);
    assert_eq!(non_test_lines(text), 19 - 15);
}

#[test]
fn nested_and_several_test_modules_are_each_taken_out_whole() {
    let text = "\
mod outer {
    fn keep() {}
    #[cfg(test)]
    pub(crate) mod inner {
        fn t() { if true { } }
    }
    fn keep_too() {}
}
#[cfg(test)]
#[allow(clippy::all)]
mod more { }
const S: &str = \"#[cfg(test)] mod fake { \";
";
    assert_eq!(non_test_lines(text), 12 - 4 - 3);
}

#[test]
fn the_scanner_blanks_literals_and_comments_but_keeps_code() {
    let code = code_only("let r#type = br##\"{\"#}\"##; // }\nlet c = '{'; 'a: loop {}\n");
    let code = String::from_utf8(code).expect("utf8");
    assert!(!code.contains('"'), "{code}");
    assert_eq!(code.matches('{').count(), 1, "{code}");
    assert_eq!(code.matches('}').count(), 1, "{code}");
    assert!(code.contains("let r#type ="), "{code}");
    assert_eq!(code.lines().count(), 2);
}
