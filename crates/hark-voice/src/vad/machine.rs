//! The turn state machine of Pipecat 1.14's `VADAnalyzer`: quiet → starting → speaking →
//! stopping → quiet, counted in model windows. A window is "speech" when the model's
//! confidence and the smoothed volume both reach their thresholds ([`super::VadParams`]).

/// Where the caller's speech is, as Pipecat's `VADState` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VadState {
    /// No speech.
    Quiet,
    /// Speech windows, not yet `start_secs` of them in a row.
    Starting,
    /// Speech confirmed.
    Speaking,
    /// Non-speech windows after speech, not yet `stop_secs` of them in a row.
    Stopping,
}

/// What one window changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transition {
    /// Starting → speaking: speech confirmed.
    Started,
    /// Stopping → quiet: speech over.
    Stopped,
}

/// Pipecat's counters: `start_frames = round(start_secs / window_secs)`, the same for stop.
#[derive(Debug, Clone)]
pub struct TurnMachine {
    state: VadState,
    starting: u32,
    stopping: u32,
    start_frames: u32,
    stop_frames: u32,
}

impl TurnMachine {
    /// A quiet machine confirming speech after `start_frames` speech windows in a row and its
    /// end after `stop_frames` non-speech windows in a row.
    pub fn new(start_frames: u32, stop_frames: u32) -> Self {
        Self {
            state: VadState::Quiet,
            starting: 0,
            stopping: 0,
            start_frames,
            stop_frames,
        }
    }

    /// The current state.
    pub fn state(&self) -> VadState {
        self.state
    }

    /// One window: `speaking` is whether it counts as speech. Pipecat checks the two
    /// confirmations once per buffer it is given; with buffers of at most one window (its
    /// transports send 10–20 ms) that is once per window, as here.
    pub fn window(&mut self, speaking: bool) -> Option<Transition> {
        use VadState::*;
        match (speaking, self.state) {
            (true, Quiet) => {
                self.state = Starting;
                self.starting = 1;
            }
            (true, Starting) => self.starting += 1,
            (true, Stopping) => {
                self.state = Speaking;
                self.stopping = 0;
            }
            (false, Starting) => {
                self.state = Quiet;
                self.starting = 0;
            }
            (false, Speaking) => {
                self.state = Stopping;
                self.stopping = 1;
            }
            (false, Stopping) => self.stopping += 1,
            (true, Speaking) | (false, Quiet) => {}
        }
        if self.state == Starting && self.starting >= self.start_frames {
            self.state = Speaking;
            self.starting = 0;
            return Some(Transition::Started);
        }
        if self.state == Stopping && self.stopping >= self.stop_frames {
            self.state = Quiet;
            self.stopping = 0;
            return Some(Transition::Stopped);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(m: &mut TurnMachine, windows: &str) -> Vec<(usize, Transition)> {
        windows
            .chars()
            .enumerate()
            .filter_map(|(i, c)| m.window(c == 'S').map(|t| (i, t)))
            .collect()
    }

    #[test]
    fn start_and_stop_are_confirmed_after_their_counts_in_a_row() {
        let mut m = TurnMachine::new(6, 6);
        let got = run(&mut m, "..SSSSSSSSSS......");
        assert_eq!(
            got,
            vec![(7, Transition::Started), (17, Transition::Stopped)]
        );
        assert_eq!(m.state(), VadState::Quiet);
    }

    #[test]
    fn a_non_speech_window_while_starting_goes_back_to_quiet() {
        let mut m = TurnMachine::new(6, 6);
        assert_eq!(run(&mut m, "SSSSS.SSSSS."), vec![]);
        assert_eq!(m.state(), VadState::Quiet);
    }

    #[test]
    fn speech_while_stopping_resumes_the_turn() {
        let mut m = TurnMachine::new(2, 3);
        let got = run(&mut m, "SS..S..S...");
        assert_eq!(
            got,
            vec![(1, Transition::Started), (10, Transition::Stopped)]
        );
    }
}
