//! Streaming JSON Lines reader.

use crate::Origin;
use ladder_events::json::{self, parse_checked_line, parse_lined};
use ladder_events::{Checked, Event, Rule, Violation, MAX_LINE_BYTES};
use std::io::{BufRead, Read};
use std::ops::Range;
use std::sync::Arc;

/// Reads events from a JSON Lines stream, one per non-blank line, in constant memory.
///
/// Yields `(origin, Ok(event))` or `(origin, Err(violation))` for a line that is not a valid event
/// (malformed JSON, non-UTF-8, an unknown type, a stateless rule...). Blank lines are skipped.
///
/// - A line longer than [`MAX_LINE_BYTES`] is an `Err` of rule `line-length` after reading only
///   that much of it; if the caller reads on (skipping invalid lines), the rest of the line is
///   skipped without being held in memory and reading resumes at the next line.
/// - A UTF-8 byte order mark at the very start of the stream is skipped (editors on Windows write
///   one); anywhere else it is not white space and the line is refused (rule `syntax`).
/// - Lines end with `\n` or `\r\n`. A carriage return anywhere else is refused (rule `syntax`,
///   naming its column): a file with lone `\r` line ends would otherwise read as one long line.
/// - An I/O error (a directory, a failing disk) ends the stream with one final `Err` item of rule
///   `unreadable-input`, which a log never skips: a file that cannot be read whole is never
///   mistaken for a complete one, nor its unread rest for one skipped line.
pub struct JsonLines<R> {
    reader: R,
    file: Arc<str>,
    line: u64,
    buf: Vec<u8>,
    done: bool,
    /// The last line was too long and its rest is still unread.
    resync: bool,
}

impl<R: BufRead> JsonLines<R> {
    /// Reads from `reader`, naming it `file` in origins.
    pub fn new(reader: R, file: &str) -> JsonLines<R> {
        JsonLines {
            reader,
            file: file.into(),
            line: 0,
            buf: Vec::with_capacity(256),
            done: false,
            resync: false,
        }
    }

    /// The next line into `buf`, at most [`MAX_LINE_BYTES`] and its line end.
    fn read_line(&mut self) -> std::io::Result<usize> {
        if self.resync {
            self.resync = false;
            self.reader.skip_until(b'\n')?;
        }
        (&mut self.reader).take(READ_LIMIT).read_until(b'\n', &mut self.buf)
    }
}

/// The most [`JsonLines`] reads of one line: the longest line, a byte order mark, `\r\n`, and one
/// byte more to tell that a line is longer.
const READ_LIMIT: u64 = MAX_LINE_BYTES as u64 + 6;

fn unreadable(e: &std::io::Error) -> Violation {
    Violation::new(Rule::Unreadable, format!("the input cannot be read: {e}"))
}

/// A non-blank line that [`JsonLines::next_raw`] read and checked (its length, carriage returns
/// and UTF-8) but did not parse: bytes `start..end` of the caller's buffer, and whether the line
/// ended with a newline. [`parse_raw`] parses it as [`JsonLines`] would.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawLine {
    /// Where the line's text starts in the buffer.
    pub start: usize,
    /// Where it ends.
    pub end: usize,
    /// Whether the line ended with a newline (a last line without one may be truncated).
    pub complete: bool,
}

/// Parses the text of a line that [`JsonLines::next_raw`] read, with what [`JsonLines`] says of
/// it: the same event or the same violation.
pub fn parse_raw(text: &str, complete: bool) -> Result<Event, Violation> {
    parse_raw_checked(text, complete).map(Checked::into_event)
}

/// [`parse_raw`], giving the event as [`Checked`] (its own rules hold): the same event or the
/// same violation.
pub fn parse_raw_checked(text: &str, complete: bool) -> Result<Checked, Violation> {
    parse_checked_line(text).map_err(|v| truncated(v, complete))
}

/// [`parse_raw_checked`], with the event's canonical line written into `buf` ([`parse_lined`]):
/// the same event or the same violation.
pub fn parse_raw_lined<'b>(
    text: &str,
    complete: bool,
    buf: &'b mut Vec<u8>,
) -> Result<json::Lined<'b>, Violation> {
    parse_lined(text, buf).map_err(|v| truncated(v, complete))
}

/// The violation of a line, saying so when the line is the last one and has no newline.
fn truncated(v: Violation, complete: bool) -> Violation {
    if complete {
        v
    } else {
        // The last line has no newline: most likely a truncated file.
        Violation::new(v.rule, format!("{} (the file ends inside this line: truncated?)", v.detail))
    }
}

impl<R: BufRead> JsonLines<R> {
    /// The next non-blank line, read and checked but not parsed, its text appended to `into`:
    /// [`JsonLines`]'s next item with the parsing left to [`parse_raw`] (which another thread
    /// may do). Reading on after this and after the iterator gives the same lines.
    pub fn next_raw(&mut self, into: &mut String) -> Option<(Origin, Result<RawLine, Violation>)> {
        let (origin, line) = self.next_text()?;
        Some((
            origin,
            line.map(|(text, complete)| {
                let start = into.len();
                into.push_str(text);
                RawLine { start, end: into.len(), complete }
            }),
        ))
    }

    /// The next non-blank line's text (borrowed from the buffer) and whether it ended with a
    /// newline, or why it is refused before parsing.
    fn next_text(&mut self) -> Option<Lined<(&str, bool)>> {
        let (origin, line) = self.next_range()?;
        let text = line.and_then(|(range, complete)| {
            // Checked as UTF-8 by next_range: this cannot fail, and would refuse the line if it did.
            std::str::from_utf8(&self.buf[range]).map(|t| (t, complete)).map_err(|e| not_utf8(&e))
        });
        Some((origin, text))
    }

    /// The next non-blank line as a range of the buffer and whether it ended with a newline, or
    /// why it is refused before parsing.
    fn next_range(&mut self) -> Option<Lined<(Range<usize>, bool)>> {
        while !self.done {
            self.buf.clear();
            self.line += 1;
            let origin = Origin { file: self.file.clone(), line: self.line };
            match self.read_line() {
                Ok(0) => self.done = true,
                Ok(_) => {
                    let complete = self.buf.last() == Some(&b'\n');
                    let mut end = self.buf.len() - usize::from(complete);
                    if end > 0 && self.buf[end - 1] == b'\r' {
                        end -= 1;
                    }
                    let bom = self.line == 1 && self.buf[..end].starts_with(b"\xEF\xBB\xBF");
                    let start = if bom { 3 } else { 0 };
                    let bytes = &self.buf[start..end];
                    let cut = !complete && self.buf.len() as u64 == READ_LIMIT;
                    if cut || bytes.len() > MAX_LINE_BYTES {
                        self.resync = cut;
                        let v = Violation::new(
                            Rule::LineLength,
                            format!(
                                "the line is longer than {MAX_LINE_BYTES} bytes (1 MiB), the \
                                 longest line ladder reads"
                            ),
                        );
                        return Some((origin, Err(v)));
                    }
                    if let Some(column) = bytes.iter().position(|&b| b == b'\r') {
                        let v = Violation::new(
                            Rule::Syntax,
                            format!(
                                "a carriage return (\\r) at column {} that does not end the \
                                 line: lines end with \\n or \\r\\n (a file with lone \\r \
                                 line ends must be converted first)",
                                column + 1
                            ),
                        );
                        return Some((origin, Err(v)));
                    }
                    match std::str::from_utf8(bytes) {
                        Ok(text) if text.trim().is_empty() => continue,
                        Ok(_) => return Some((origin, Ok((start..end, complete)))),
                        Err(e) => return Some((origin, Err(not_utf8(&e)))),
                    }
                }
                Err(e) => {
                    self.done = true;
                    return Some((origin, Err(unreadable(&e))));
                }
            }
        }
        None
    }
}

/// A line's origin and what was read of it, or why it is refused.
type Lined<T> = (Origin, Result<T, Violation>);

/// The violation of a line that is not UTF-8.
fn not_utf8(e: &std::str::Utf8Error) -> Violation {
    Violation::new(
        Rule::Syntax,
        format!("the line is not UTF-8 (invalid byte at column {})", e.valid_up_to() + 1),
    )
}

impl<R: BufRead> Iterator for JsonLines<R> {
    type Item = (Origin, Result<Event, Violation>);

    fn next(&mut self) -> Option<Self::Item> {
        let (origin, line) = self.next_text()?;
        Some((origin, line.and_then(|(text, complete)| parse_raw(text, complete))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_lines_and_skips_blanks() {
        let input = b"{\"type\":\"MidnightTick\",\"at\":\"2026-03-02\"}\n\n  \r\n{\"type\":\"Nope\",\"at\":\"2026-03-02\"}\n\xff\n{\"type\":\"MidnightTick\",\"at\":\"2026-03-03\"}";
        let items: Vec<_> = JsonLines::new(&input[..], "x.jsonl").collect();
        assert_eq!(items.len(), 4);
        assert_eq!(items[0].0.to_string(), "x.jsonl:1");
        assert!(items[0].1.is_ok());
        assert_eq!(items[1].0.line, 4);
        assert_eq!(items[1].1.as_ref().unwrap_err().rule, Rule::UnknownType);
        assert_eq!(items[2].0.line, 5);
        assert!(items[2].1.as_ref().unwrap_err().detail.contains("not UTF-8"));
        // A complete event on a last line without newline is fine.
        assert!(items[3].1.is_ok());
    }

    #[test]
    fn truncated_last_line_says_so() {
        let input = b"{\"type\":\"MidnightTick\",\"at\":\"2026-03-02\"}\n{\"type\":\"Midn";
        let items: Vec<_> = JsonLines::new(&input[..], "-").collect();
        let err = items[1].1.as_ref().unwrap_err();
        assert!(err.detail.contains("truncated"), "{err}");
    }

    #[test]
    fn a_line_parsed_with_its_line_gives_what_parse_raw_gives() {
        // Canonical, not canonical (serde_json's path), refused, and refused as truncated.
        let mut buf = Vec::new();
        for (text, complete) in [
            (r#"{"type":"MidnightTick","at":"2026-03-02T00:00:00Z"}"#, true),
            (r#"{ "at": "2026-03-02", "type": "MidnightTick" }"#, true),
            (r#"{"type":"MidnightTick","at":"2026-03-02","x":1}"#, true),
            (r#"{"type":"Midn"#, false),
        ] {
            let plain = parse_raw_checked(text, complete);
            match parse_raw_lined(text, complete, &mut buf) {
                Ok(lined) => {
                    let line = String::from_utf8(lined.line().to_vec()).unwrap();
                    assert_eq!(line, ladder_events::json::to_line(lined.event()), "{text}");
                    assert_eq!(Ok(lined.into_checked()), plain, "{text}");
                }
                Err(v) => assert_eq!(Err(v), plain, "{text}"),
            }
        }
    }

    const TICK: &str = r#"{"type":"MidnightTick","at":"2026-03-02"}"#;

    /// `TICK` padded with spaces inside the object to `n` bytes.
    fn tick_of_len(n: usize) -> String {
        let mut line = TICK[..TICK.len() - 1].to_string();
        line.push_str(&" ".repeat(n - TICK.len()));
        line.push('}');
        line
    }

    #[test]
    fn lines_up_to_1_mib_are_read_and_longer_ones_refused_then_skipped() {
        let mut input = Vec::new();
        for n in [MAX_LINE_BYTES, MAX_LINE_BYTES + 1, 3 * MAX_LINE_BYTES, MAX_LINE_BYTES] {
            input.extend_from_slice(tick_of_len(n).as_bytes());
            input.extend_from_slice(if n % 2 == 0 { b"\r\n" } else { b"\n" });
        }
        input.extend_from_slice(TICK.as_bytes());
        let items: Vec<_> = JsonLines::new(&input[..], "long.jsonl").collect();
        let rules: Vec<_> =
            items.iter().map(|(o, r)| (o.line, r.as_ref().err().map(|v| v.rule))).collect();
        assert_eq!(
            rules,
            [
                (1, None),
                (2, Some(Rule::LineLength)),
                (3, Some(Rule::LineLength)),
                (4, None),
                (5, None)
            ]
        );
        let v = items[1].1.as_ref().unwrap_err();
        assert!(v.detail.contains("longer than 1048576 bytes"), "{v}");
    }

    #[test]
    fn an_endless_line_is_refused_in_bounded_memory() {
        // /dev/zero: no line end, ever. The first item is the refusal, after reading 1 MiB and
        // a few bytes.
        let mut lines = JsonLines::new(std::io::BufReader::new(std::io::repeat(0)), "/dev/zero");
        let (origin, item) = lines.next().unwrap();
        assert_eq!((origin.line, item.unwrap_err().rule), (1, Rule::LineLength));
        assert!(lines.buf.capacity() <= 4 * MAX_LINE_BYTES, "{}", lines.buf.capacity());
        // A second endless line follows a newline: resynchronised there, refused again.
        let input = std::io::Cursor::new(vec![b'x'; 2 * MAX_LINE_BYTES])
            .chain(&b"\n"[..])
            .chain(std::io::repeat(b'y').take(5 * MAX_LINE_BYTES as u64));
        let items: Vec<_> = JsonLines::new(std::io::BufReader::new(input), "-").collect();
        let rules: Vec<_> =
            items.iter().map(|(o, r)| (o.line, r.as_ref().unwrap_err().rule)).collect();
        assert_eq!(rules, [(1, Rule::LineLength), (2, Rule::LineLength)]);
    }

    #[test]
    fn a_byte_order_mark_is_skipped_at_the_start_only() {
        let input = format!("\u{feff}{TICK}\n\u{feff}{TICK}\n");
        let items: Vec<_> = JsonLines::new(input.as_bytes(), "bom.jsonl").collect();
        assert!(items[0].1.is_ok(), "{:?}", items[0].1);
        let v = items[1].1.as_ref().unwrap_err();
        assert_eq!((items[1].0.line, v.rule), (2, Rule::Syntax));
    }

    #[test]
    fn a_lone_carriage_return_is_refused_naming_its_column() {
        let input = format!("{TICK}\r{TICK}\r\n{TICK}\r\n");
        let items: Vec<_> = JsonLines::new(input.as_bytes(), "cr.jsonl").collect();
        let v = items[0].1.as_ref().unwrap_err();
        assert_eq!(v.rule, Rule::Syntax);
        assert!(
            v.detail.contains(&format!("carriage return (\\r) at column {}", TICK.len() + 1)),
            "{v}"
        );
        assert_eq!(items[1].0.line, 2);
        assert!(items[1].1.is_ok());
    }

    /// A reader that fails after its bytes.
    struct Failing(&'static [u8]);

    impl std::io::Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Err(std::io::Error::other("the disk failed"));
            }
            let n = buf.len().min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_read_error_ends_the_stream_as_unreadable_input() {
        let input = b"{\"type\":\"MidnightTick\",\"at\":\"2026-03-02\"}\n{\"type\":";
        let items: Vec<_> =
            JsonLines::new(std::io::BufReader::new(Failing(input)), "bad.jsonl").collect();
        assert_eq!(items.len(), 2);
        assert!(items[0].1.is_ok());
        let v = items[1].1.as_ref().unwrap_err();
        assert_eq!((items[1].0.line, v.rule), (2, Rule::Unreadable));
        assert!(!v.rule.skippable());
        assert!(v.detail.contains("the disk failed"), "{v}");
    }
}
