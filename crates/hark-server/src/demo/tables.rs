//! The demo restaurant's table bookings: the local tool `book_table` that
//! `examples/booking.toml`'s flow closes its booking step with.
//!
//! `book_table` takes how many people come (`party`, 1–12), the day (`day`, a date) and where
//! they sit (`seating`, `inside` or `outside`). Its precheck refuses a day before today in the
//! restaurant's timezone ([`RESTAURANT_TIMEZONE`]) without running the tool ("Check a rule
//! before the tool runs"): the outcome is `{"status": "past_day", …}`, which a flow's finish
//! rule leaves out, so the day is never read back and the step stays open. The terrace seats
//! at most [`TERRACE_SEATS`]: a larger party outside gets `{"status": "full", …}`.
//! Bookings go to a [`TableBook`], shared like the shop's [`super::OrderBook`].

use std::sync::{Arc, Mutex};

use hark_tools::{ToolError, ToolReply, ToolSpec};
use jiff::civil::Date;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The restaurant's IANA timezone: "today" for the past-day precheck is its day.
pub const RESTAURANT_TIMEZONE: &str = "Europe/Madrid";

/// The most people the terrace seats at one table.
pub const TERRACE_SEATS: u8 = 6;

/// Where a party sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Seating {
    /// In the dining room.
    Inside,
    /// On the terrace.
    Outside,
}

/// One booked table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Table {
    /// `T-2001`, `T-2002`, … in the order they were booked.
    pub reference: String,
    /// How many people.
    pub party: u8,
    /// The day.
    pub day: Date,
    /// Inside or outside.
    pub seating: Seating,
}

type Today = Arc<dyn Fn() -> Date + Send + Sync>;

/// The bookings of this process and the clock that says what day it is. Cheap to clone.
#[derive(Clone)]
pub struct TableBook {
    tables: Arc<Mutex<Vec<Table>>>,
    today: Today,
}

impl std::fmt::Debug for TableBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableBook")
            .field("tables", &self.len())
            .field("today", &(self.today)())
            .finish()
    }
}

impl Default for TableBook {
    fn default() -> Self {
        Self::new()
    }
}

impl TableBook {
    /// An empty book whose today is the current day in [`RESTAURANT_TIMEZONE`].
    pub fn new() -> Self {
        Self {
            tables: Arc::default(),
            today: Arc::new(restaurant_today),
        }
    }

    /// An empty book whose today is always `today` (for tests).
    pub fn with_today(today: Date) -> Self {
        Self {
            tables: Arc::default(),
            today: Arc::new(move || today),
        }
    }

    /// What day it is for the restaurant.
    pub fn today(&self) -> Date {
        (self.today)()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Table>> {
        self.tables.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Books a table and returns it with its new reference.
    pub fn book(&self, party: u8, day: Date, seating: Seating) -> Table {
        let mut tables = self.lock();
        let table = Table {
            reference: format!("T-{}", 2001 + tables.len()),
            party,
            day,
            seating,
        };
        tables.push(table.clone());
        table
    }

    /// Every table booked, in order.
    pub fn tables(&self) -> Vec<Table> {
        self.lock().clone()
    }

    /// How many tables were booked.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// True when no table was booked.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Today in [`RESTAURANT_TIMEZONE`] (UTC if the zone were missing from jiff's database).
fn restaurant_today() -> Date {
    let zone = jiff::tz::TimeZone::get(RESTAURANT_TIMEZONE).unwrap_or(jiff::tz::TimeZone::UTC);
    jiff::Timestamp::now().to_zoned_datetime(zone).date()
}

/// `book_table`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Booking {
    /// How many people come, the caller included.
    #[schemars(range(min = 1, max = 12))]
    party: u8,
    /// The day of the booking.
    #[schemars(schema_with = "hark_tools::schema::date")]
    day: Date,
    /// Inside in the dining room, or outside on the terrace.
    seating: Seating,
}

/// The precheck's part of the arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct DayOnly {
    #[schemars(schema_with = "hark_tools::schema::date")]
    day: Date,
}

/// How a booking went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum BookingStatus {
    /// The table is booked.
    Booked,
    /// The day is before today (the precheck's outcome; nothing was booked).
    PastDay,
    /// The terrace has no table that large.
    Full,
}

/// `book_table`'s result.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct Booked {
    /// `booked`, `past_day` or `full`.
    status: BookingStatus,
    /// The booking's reference, like `T-2001`; empty unless booked.
    reference: String,
    /// How many people.
    party: u8,
}

/// `book_table`: books a table in `book` (see the module docs).
pub fn book_table(book: TableBook) -> ToolSpec {
    let today = book.today.clone();
    let tool = ToolSpec::local(
        "book_table",
        "Book a table at Bistro Hark for a day, a number of people, inside or outside.",
        move |booking: Booking| {
            let book = book.clone();
            async move {
                if booking.seating == Seating::Outside && booking.party > TERRACE_SEATS {
                    return Ok::<_, ToolError>(Booked {
                        status: BookingStatus::Full,
                        reference: String::new(),
                        party: booking.party,
                    });
                }
                let table = book.book(booking.party, booking.day, booking.seating);
                Ok(Booked {
                    status: BookingStatus::Booked,
                    reference: table.reference,
                    party: table.party,
                })
            }
        },
    )
    .and_then(|tool| {
        tool.precheck(move |d: DayOnly| {
            (d.day < today()).then_some(Booked {
                status: BookingStatus::PastDay,
                reference: String::new(),
                party: 0,
            })
        })
    })
    .map(|tool| {
        tool.replies([
            // Each line in Spanish too: a call in es-ES hears them in its language.
            ToolReply::say(["That day has already gone. Which other day would suit you?"])
                .say_in(
                    "es",
                    ["Ese día ya ha pasado. ¿Qué otro día le vendría bien?"],
                )
                .when("status", [Value::from("past_day")]),
            ToolReply::say(["The terrace has no table for {{result.party}}. Shall I look inside?"])
                .say_in(
                    "es",
                    ["La terraza no tiene mesa para {{result.party}}. ¿Miro dentro?"],
                )
                .when("status", [Value::from("full")]),
            ToolReply::say(["Your table is booked. The reference is {{result.reference}}."])
                .say_in(
                    "es",
                    ["Su mesa está reservada. La referencia es {{result.reference}}."],
                )
                .when("status", [Value::from("booked")]),
        ])
    });
    // The tool's schema and precheck are fixed in this file and checked by its tests.
    tool.unwrap_or_else(|error| panic!("the demo's book_table does not build: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn book_table_builds_with_its_precheck() {
        let tool = book_table(TableBook::with_today("2026-10-15".parse().unwrap()));
        assert!(tool.has_precheck());
        assert_eq!(tool.name(), "book_table");
    }
}
