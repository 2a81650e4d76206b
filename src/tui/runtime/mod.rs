//! The imperative shell: the only part of the TUI that touches the terminal, threads and
//! the clipboard. One tokio task runs the loop: wait for a terminal event, a finished
//! effect or the spinner tick; drain everything already queued (so a burst of resizes or
//! key repeats collapses into one frame); draw only when the state changed, at most once
//! per [`FRAME`].

pub mod clipboard;
pub mod copies;
pub mod effects;
pub mod logging;
pub mod opener;
pub mod refunds;
pub mod terminal;
pub mod workbench;

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{Event, EventStream, MouseButton, MouseEventKind};
use futures::StreamExt;
use tokio::sync::mpsc;
use tokio::time::{Instant, MissedTickBehavior};

use super::keymap::Key;
use super::msg::{MouseInput, Msg};
use super::state::State;
use super::update::update;
use super::view;
pub use effects::{EffectRunner, LoadEnd, Loader};

/// The shortest time between two frames (about 60 per second).
pub const FRAME: Duration = Duration::from_millis(16);
/// The spinner's step, ticking only while work is pending.
pub const SPINNER: Duration = Duration::from_millis(80);
/// How often the cache's manifest is read to see whether a `tieout sync` elsewhere wrote
/// a newer snapshot (one small file read).
pub const WATCH: Duration = Duration::from_secs(5);

/// Turns a terminal event into a message (`None` for events the shell ignores).
pub fn translate(ev: Event) -> Option<Msg> {
    match ev {
        Event::Key(k) => Key::from_event(&k).map(Msg::Key),
        Event::Paste(text) => Some(Msg::Paste(text)),
        Event::Resize(w, h) => Some(Msg::Resize(w, h)),
        Event::Mouse(m) => {
            let (col, row) = (m.column, m.row);
            match m.kind {
                MouseEventKind::ScrollUp => Some(Msg::Mouse(MouseInput::ScrollUp { col, row })),
                MouseEventKind::ScrollDown => Some(Msg::Mouse(MouseInput::ScrollDown { col, row })),
                MouseEventKind::Down(MouseButton::Left) => {
                    Some(Msg::Mouse(MouseInput::Click { col, row }))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Runs the TUI until the user quits. The terminal is restored however this ends.
pub fn run(state: State, loader: Arc<dyn Loader>) -> Result<(), String> {
    let result = crate::app::threads::block_on(main_loop(state, loader))
        .map_err(|e| format!("could not start the async runtime: {e}"))
        .and_then(|r| r);
    terminal::restore();
    result
}

async fn main_loop(mut state: State, loader: Arc<dyn Loader>) -> Result<(), String> {
    let (mut term, _guard) =
        terminal::enter(state.mouse).map_err(|e| format!("could not open the terminal: {e}"))?;
    if let Ok(size) = term.size() {
        state.size = (size.width, size.height);
    }
    let (tx, mut rx) = mpsc::channel::<Msg>(1024);
    if state.startup != super::state::Startup::Demo {
        watch_cache(tx.clone(), Arc::clone(&loader));
    }
    let mut runner = EffectRunner::new(tx, loader);
    let first = state.start();
    runner.run_all(first);
    let mut events = EventStream::new();
    let mut ticker = tokio::time::interval(SPINNER);
    ticker.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut last_draw: Option<Instant> = None;

    let dispatch = |state: &mut State, runner: &mut EffectRunner, msg: Msg| {
        match &msg {
            Msg::Loaded { req, .. } | Msg::LoadedRest { req, .. } | Msg::Computed { req, .. } => {
                runner.finished(*req)
            }
            _ => {}
        }
        let effects = update(state, msg);
        runner.run_all(effects);
    };

    loop {
        if state.dirty {
            let now = Instant::now();
            if last_draw.is_none_or(|t| now >= t + FRAME) {
                term.draw(|f| view::render(&mut state, f))
                    .map_err(|e| format!("could not draw: {e}"))?;
                state.dirty = false;
                last_draw = Some(now);
            }
        }
        let deadline = last_draw.map_or_else(Instant::now, |t| t + FRAME);
        tokio::select! {
            ev = events.next() => match ev {
                Some(Ok(ev)) => {
                    if let Some(m) = translate(ev) {
                        dispatch(&mut state, &mut runner, m);
                    }
                }
                Some(Err(e)) => return Err(format!("terminal input failed: {e}")),
                None => break,
            },
            Some(msg) = rx.recv() => dispatch(&mut state, &mut runner, msg),
            _ = ticker.tick(), if state.animating() => dispatch(&mut state, &mut runner, Msg::Tick),
            _ = tokio::time::sleep_until(deadline), if state.dirty => {}
        }
        // Drain finished work already queued before drawing. Terminal events are not
        // polled here (polling crossterm's stream with a no-op waker would lose its
        // wake-up); a burst of them (resizes, key repeats) still collapses into one
        // frame because drawing waits for the frame deadline while events keep coming.
        while let Ok(m) = rx.try_recv() {
            dispatch(&mut state, &mut runner, m);
        }
        if state.quit {
            break;
        }
    }
    tracing::info!("tui closed");
    Ok(())
}

/// Reads the cache's manifest every [`WATCH`] and sends what it holds
/// (`Msg::SnapshotOnDisk`); the shell offers a newer snapshot than the one on screen.
/// Stops when the UI has gone.
fn watch_cache(tx: mpsc::Sender<Msg>, loader: Arc<dyn Loader>) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(WATCH);
        every.set_missed_tick_behavior(MissedTickBehavior::Skip);
        loop {
            every.tick().await;
            let l = Arc::clone(&loader);
            let Ok(Some(on_disk)) = tokio::task::spawn_blocking(move || l.on_disk()).await else {
                continue;
            };
            if tx.send(Msg::SnapshotOnDisk(on_disk)).await.is_err() {
                break;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_sane() {
        assert!(FRAME >= Duration::from_millis(8) && FRAME <= Duration::from_millis(50));
        assert!(SPINNER >= Duration::from_millis(50) && SPINNER <= Duration::from_millis(250));
    }
}
