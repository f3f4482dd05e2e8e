//! A process's resident memory and CPU time from `/proc` (Linux).

use std::time::{Duration, Instant};

/// Resident set size of `pid` in KiB (`VmRSS` of `/proc/<pid>/status`), or `None` when the
/// process is gone or the file cannot be read.
pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

/// User + system CPU time of `pid` in clock ticks (fields 14 and 15 of `/proc/<pid>/stat`).
pub fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_cpu_ticks(&stat)
}

/// utime + stime of a `/proc/<pid>/stat` line. The command name (field 2) is in parentheses
/// and may hold spaces, so fields are counted after its closing `)`.
pub fn parse_cpu_ticks(stat: &str) -> Option<u64> {
    let after = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // After ")": field 3 (state) is index 0, so utime (14) is index 11 and stime (15) index 12.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// Clock ticks per second (`getconf CLK_TCK`; 100, the Linux value, when it cannot be read).
pub fn clock_ticks() -> u64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(100)
}

/// The 1, 5 and 15 minute load averages (`/proc/loadavg`), as text.
pub fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".to_owned())
}

/// CPU use of a process over an interval: start with [`CpuMeter::start`], read with
/// [`CpuMeter::percent`] (100 % = one core busy).
#[derive(Debug, Clone, Copy)]
pub struct CpuMeter {
    pid: u32,
    ticks: u64,
    at: Instant,
    hz: u64,
}

impl CpuMeter {
    /// Starts measuring `pid` (`None` when its stat cannot be read).
    pub fn start(pid: u32, hz: u64) -> Option<Self> {
        Some(CpuMeter {
            pid,
            ticks: cpu_ticks(pid)?,
            at: Instant::now(),
            hz,
        })
    }

    /// CPU % since the start (100 % = one core), and the CPU time used.
    pub fn percent(&self) -> Option<(f64, Duration)> {
        let now = cpu_ticks(self.pid)?;
        let wall = self.at.elapsed().as_secs_f64();
        let used = now.saturating_sub(self.ticks) as f64 / self.hz as f64;
        (wall > 0.0).then(|| (100.0 * used / wall, Duration::from_secs_f64(used)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_ticks_are_read_after_a_command_name_with_spaces() {
        let line = "4242 (hark serve x) S 1 4242 4242 0 -1 4194560 900 0 0 0 1234 567 0 0 20 0 \
                    9 0 100 1000000 2000 18446744073709551615";
        assert_eq!(parse_cpu_ticks(line), Some(1234 + 567));
        assert_eq!(parse_cpu_ticks("garbage"), None);
    }

    #[test]
    fn this_process_has_an_rss_and_cpu_time() {
        let me = std::process::id();
        assert!(rss_kib(me).is_some_and(|k| k > 0));
        assert!(cpu_ticks(me).is_some());
    }
}
