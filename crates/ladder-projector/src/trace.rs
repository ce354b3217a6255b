//! The audit record: every quantity behind a rating change, named as the seed names it.

use crate::PlayerId;
use std::borrow::Cow;

/// One line of an audit trace.
#[derive(Clone, Debug, PartialEq)]
pub enum TraceEntry {
    /// A heading that groups what follows, e.g. `UpdatePlayer(alice, bob)` or `period 20517`.
    Section(String),
    /// A computed quantity.
    Quantity {
        /// Whose update it belongs to (`None` for shared quantities).
        player: Option<PlayerId>,
        /// The seed's name, e.g. `PMERIT` or `A[2]`.
        name: Cow<'static, str>,
        /// The formula with the seed's names, e.g. `1 - (1 - P) * XD * (1 + 2 * XD)`.
        formula: &'static str,
        /// The value computed.
        value: f64,
    },
    /// The opponent of the game whose quantities follow (a player's games are listed by name, never
    /// by internal id).
    Opponent {
        /// Whose computation the game belongs to.
        player: Option<PlayerId>,
        /// Who they played.
        opponent: PlayerId,
    },
    /// Something an auditor looks for: a winner who lost rating, a negative merit weight, RD at its
    /// cap, a provisional opponent, a long idle gap.
    Flag {
        /// Whose update raised it.
        player: Option<PlayerId>,
        /// Short stable code, e.g. `winner-lost-rating`.
        code: &'static str,
        /// A sentence for people.
        message: String,
    },
}

/// A sink for [`TraceEntry`]s, passed to [`crate::Projector::apply`] when an audit wants them.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// The entries in the order they were computed.
    pub entries: Vec<TraceEntry>,
}

impl Trace {
    /// An empty trace.
    pub fn new() -> Trace {
        Trace::default()
    }

    /// Starts a section.
    pub fn section(&mut self, title: impl Into<String>) {
        self.entries.push(TraceEntry::Section(title.into()));
    }

    /// Records a quantity.
    pub fn quantity(
        &mut self,
        player: Option<PlayerId>,
        name: impl Into<Cow<'static, str>>,
        formula: &'static str,
        value: f64,
    ) {
        self.entries.push(TraceEntry::Quantity { player, name: name.into(), formula, value });
    }

    /// Names the opponent of the game whose quantities follow.
    pub fn opponent(&mut self, player: Option<PlayerId>, opponent: PlayerId) {
        self.entries.push(TraceEntry::Opponent { player, opponent });
    }

    /// Raises a flag.
    pub fn flag(
        &mut self,
        player: Option<PlayerId>,
        code: &'static str,
        message: impl Into<String>,
    ) {
        self.entries.push(TraceEntry::Flag { player, code, message: message.into() });
    }
}
