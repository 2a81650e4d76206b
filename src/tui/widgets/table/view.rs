//! The view index: which rows (those matching the filter, case-insensitive, as shown) in
//! which order (the sort column, blanks last, ties in source order), computed on all cores.

use super::*;

pub(super) fn cmp_ci(a: &str, b: &str) -> Ordering {
    a.bytes()
        .map(|c| c.to_ascii_lowercase())
        .cmp(b.bytes().map(|c| c.to_ascii_lowercase()))
}

/// Orders two cells for sorting; blanks go last in both directions.
pub(super) fn cmp_cells(a: &Cell<'_>, b: &Cell<'_>, dir: SortDir) -> Ordering {
    match (a.is_blank(), b.is_blank()) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Greater,
        (false, true) => return Ordering::Less,
        _ => {}
    }
    let o = match (a, b) {
        (Cell::Money(x), Cell::Money(y)) => x.currency.cmp(&y.currency).then(x.minor.cmp(&y.minor)),
        (Cell::Int(x), Cell::Int(y)) => x.cmp(y),
        (
            Cell::Date(Some(x)) | Cell::DateTime(Some(x)),
            Cell::Date(Some(y)) | Cell::DateTime(Some(y)),
        ) => x.cmp(y),
        (Cell::Text(x) | Cell::Tag(x, _), Cell::Text(y) | Cell::Tag(y, _)) => cmp_ci(x, y),
        _ => a.rank().cmp(&b.rank()),
    };
    match dir {
        SortDir::Asc => o,
        SortDir::Desc => o.reverse(),
    }
}

/// Sort direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortDir {
    Asc,
    Desc,
}

/// The order and selection of rows a view computation produced.
pub(super) struct ViewResult(pub(super) Vec<u32>);

/// Computes the view index: rows matching `filter` (case-insensitive, any column, as
/// shown), in `sort` order (stable: ties keep source order). Stops early when cancelled.
///
/// Both passes run on all cores (rayon): the filter in chunks of rows, the sort as a
/// stable parallel merge sort over the sort column's cells, taken once per row (so a
/// comparison does not go back to the source). A million rows take a fraction of a
/// second to a second or two; the table runs this off the UI task above [`SYNC_LIMIT`].
pub fn compute_view(
    src: &dyn TableSource,
    filter: &str,
    sort: Option<(usize, SortDir)>,
    tz: &TimeZone,
    cancel: &CancelFlag,
) -> Vec<u32> {
    use rayon::prelude::*;
    const CHUNK: usize = 8192;
    let needle = filter.trim().to_lowercase();
    let ncols = src.columns().len();
    let n = src.len().min(u32::MAX as usize);
    // `n` is capped at u32::MAX above.
    let index = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
    let mut view: Vec<u32> = if needle.is_empty() {
        (0..n).map(index).collect()
    } else {
        let chunks: Vec<Vec<u32>> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|k| {
                if cancel.is_cancelled() {
                    return Vec::new();
                }
                (k * CHUNK..((k + 1) * CHUNK).min(n))
                    .filter(|&i| {
                        (0..ncols).any(|c| contains_ci(&src.cell(i, c).display(tz), &needle))
                    })
                    .map(index)
                    .collect()
            })
            .collect();
        chunks.concat()
    };
    if cancel.is_cancelled() {
        return Vec::new();
    }
    if let Some((c, dir)) = sort {
        let mut keyed: Vec<(Cell<'_>, u32)> = view
            .par_iter()
            .map(|&r| (src.cell(r as usize, c), r))
            .collect();
        if cancel.is_cancelled() {
            return Vec::new();
        }
        keyed.par_sort_by(|(a, _), (b, _)| cmp_cells(a, b, dir));
        view = keyed.into_iter().map(|(_, r)| r).collect();
    }
    view
}
