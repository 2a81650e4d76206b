//! The interactive workbench: state, actions, panes, widgets, keymap, themes, runtime.
