//! Socket.IO v5 packets, carried inside Engine.IO message packets.
//!
//! Layout: `<type>[<attachments>-][/<namespace>,][<ack id>][<json>]`, e.g.
//! `2/chat,12["hello",1]`. Binary packets name their attachment count and
//! carry `{"_placeholder":true,"num":N}` where each binary value was; the
//! attachments follow as separate binary Engine.IO packets.

use actix_web::web::Bytes;
use bytestring::ByteString;
use serde::Serialize;
use serde_json::Value;

/// The namespace a packet without a `/name,` prefix belongs to.
pub const MAIN_NAMESPACE: &str = "/";

/// A client may not announce more attachments than this, so a malformed
/// header cannot make the server wait for (and buffer) an unbounded number.
pub const MAX_ATTACHMENTS: usize = 1_000;

/// Event names the Socket.IO client library reserves for itself.
const RESERVED_EVENTS: &[&str] = &[
    "connect",
    "connect_error",
    "disconnect",
    "disconnecting",
    "newListener",
    "removeListener",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketKind {
    Connect = 0,
    Disconnect = 1,
    Event = 2,
    Ack = 3,
    ConnectError = 4,
    BinaryEvent = 5,
    BinaryAck = 6,
}

impl PacketKind {
    fn from_char(c: u8) -> Option<Self> {
        Some(match c {
            b'0' => PacketKind::Connect,
            b'1' => PacketKind::Disconnect,
            b'2' => PacketKind::Event,
            b'3' => PacketKind::Ack,
            b'4' => PacketKind::ConnectError,
            b'5' => PacketKind::BinaryEvent,
            b'6' => PacketKind::BinaryAck,
            _ => return None,
        })
    }

    fn is_binary(self) -> bool {
        matches!(self, PacketKind::BinaryEvent | PacketKind::BinaryAck)
    }

    fn digit(self) -> char {
        char::from(b'0' + self as u8)
    }
}

/// A decoded Socket.IO packet (attachments, if any, still to come).
#[derive(Debug, Clone, PartialEq)]
pub struct Packet {
    pub kind: PacketKind,
    pub nsp: String,
    pub attachments: usize,
    pub id: Option<u64>,
    pub data: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    UnknownType,
    BadAttachmentCount,
    BadAckId,
    InvalidJson,
    /// The JSON is well formed but not what this packet type carries.
    InvalidPayload,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ParseError::UnknownType => "unknown packet type",
            ParseError::BadAttachmentCount => "invalid attachment count",
            ParseError::BadAckId => "invalid ack id",
            ParseError::InvalidJson => "invalid JSON payload",
            ParseError::InvalidPayload => "payload does not match packet type",
        })
    }
}

impl std::error::Error for ParseError {}

/// Reads a Socket.IO packet from the text of an Engine.IO message.
pub fn decode(text: &str) -> Result<Packet, ParseError> {
    let bytes = text.as_bytes();
    let kind = bytes
        .first()
        .and_then(|c| PacketKind::from_char(*c))
        .ok_or(ParseError::UnknownType)?;
    let mut pos = 1;

    let mut attachments = 0;
    if kind.is_binary() {
        let digits = count_digits(&bytes[pos..]);
        if digits == 0 || bytes.get(pos + digits) != Some(&b'-') {
            return Err(ParseError::BadAttachmentCount);
        }
        attachments = text[pos..pos + digits]
            .parse::<usize>()
            .ok()
            .filter(|n| *n <= MAX_ATTACHMENTS)
            .ok_or(ParseError::BadAttachmentCount)?;
        pos += digits + 1;
    }

    let mut nsp = MAIN_NAMESPACE.to_owned();
    if bytes.get(pos) == Some(&b'/') {
        let end = text[pos..].find(',').map_or(text.len(), |i| pos + i);
        nsp = text[pos..end].to_owned();
        // Skip the comma too, when there is one.
        pos = (end + 1).min(text.len());
    }

    let digits = count_digits(&bytes[pos..]);
    let id = if digits > 0 {
        let id = text[pos..pos + digits]
            .parse::<u64>()
            .map_err(|_| ParseError::BadAckId)?;
        pos += digits;
        Some(id)
    } else {
        None
    };

    let rest = &text[pos..];
    let data = if rest.is_empty() {
        None
    } else {
        Some(serde_json::from_str::<Value>(rest).map_err(|_| ParseError::InvalidJson)?)
    };

    let packet = Packet {
        kind,
        nsp,
        attachments,
        id,
        data,
    };
    if payload_is_valid(&packet) {
        Ok(packet)
    } else {
        Err(ParseError::InvalidPayload)
    }
}

fn count_digits(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|b| b.is_ascii_digit()).count()
}

fn payload_is_valid(p: &Packet) -> bool {
    match p.kind {
        PacketKind::Connect => matches!(p.data, None | Some(Value::Object(_))),
        PacketKind::Disconnect => p.data.is_none(),
        PacketKind::ConnectError => {
            matches!(p.data, Some(Value::Object(_)) | Some(Value::String(_)))
        }
        PacketKind::Event | PacketKind::BinaryEvent => match &p.data {
            Some(Value::Array(items)) => matches!(
                items.first(),
                Some(Value::String(name)) if !RESERVED_EVENTS.contains(&name.as_str())
            ),
            _ => false,
        },
        PacketKind::Ack | PacketKind::BinaryAck => {
            p.id.is_some() && matches!(p.data, Some(Value::Array(_)))
        }
    }
}

/// The JSON that stands in for attachment `num` in a binary packet.
pub fn placeholder(num: usize) -> Value {
    serde_json::json!({ "_placeholder": true, "num": num })
}

/// Which attachment a value stands for, if it is a placeholder.
pub fn placeholder_index(value: &Value) -> Option<usize> {
    let obj = value.as_object()?;
    if obj.get("_placeholder")?.as_bool()? {
        usize::try_from(obj.get("num")?.as_u64()?).ok()
    } else {
        None
    }
}

/// A Socket.IO packet encoded once, ready to go to any number of sockets:
/// the Engine.IO text frame (`4` + packet) followed by its attachments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub text: ByteString,
    pub attachments: Vec<Bytes>,
}

/// Serialising application data can fail (e.g. a map with non-string keys).
#[derive(Debug)]
pub struct EncodeError(serde_json::Error);

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot encode Socket.IO packet: {}", self.0)
    }
}

impl std::error::Error for EncodeError {}

/// Writes the Engine.IO message digit and the Socket.IO header.
fn header(kind: PacketKind, nsp: &str, attachments: usize, id: Option<u64>) -> Vec<u8> {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(64);
    s.push('4');
    s.push(kind.digit());
    if kind.is_binary() {
        let _ = write!(s, "{attachments}-");
    }
    if nsp != MAIN_NAMESPACE {
        s.push_str(nsp);
        s.push(',');
    }
    if let Some(id) = id {
        let _ = write!(s, "{id}");
    }
    s.into_bytes()
}

fn finish(buf: Vec<u8>, attachments: Vec<Bytes>) -> Frame {
    // Header is built from &str and serde_json writes UTF-8, so this
    // conversion cannot fail; fall back to lossy decoding rather than panic.
    let text = match String::from_utf8(buf) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    Frame {
        text: ByteString::from(text),
        attachments,
    }
}

/// Encodes the JSON array `[event, args...]` without building a `Value`.
fn write_event_array(
    buf: &mut Vec<u8>,
    event: Option<&str>,
    args: &[&dyn erased::Json],
) -> Result<(), EncodeError> {
    buf.push(b'[');
    let mut first = true;
    if let Some(event) = event {
        serde_json::to_writer(&mut *buf, event).map_err(EncodeError)?;
        first = false;
    }
    for arg in args {
        if !first {
            buf.push(b',');
        }
        first = false;
        arg.write_json(buf)?;
    }
    buf.push(b']');
    Ok(())
}

/// Lets one slice hold differently typed serialisable arguments.
pub(crate) mod erased {
    use super::EncodeError;
    use serde::Serialize;

    pub trait Json {
        fn write_json(&self, buf: &mut Vec<u8>) -> Result<(), EncodeError>;
    }

    impl<T: Serialize + ?Sized> Json for T {
        fn write_json(&self, buf: &mut Vec<u8>) -> Result<(), EncodeError> {
            serde_json::to_writer(buf, self).map_err(EncodeError)
        }
    }
}

/// EVENT (or BINARY_EVENT when there are attachments) from values.
pub fn event_frame(
    nsp: &str,
    event: &str,
    args: &[Value],
    attachments: Vec<Bytes>,
) -> Result<Frame, EncodeError> {
    event_frame_with_id(nsp, event, args, attachments, None)
}

/// [`event_frame`] asking the client to acknowledge it as packet `id`.
pub fn event_frame_with_id(
    nsp: &str,
    event: &str,
    args: &[Value],
    attachments: Vec<Bytes>,
    id: Option<u64>,
) -> Result<Frame, EncodeError> {
    let refs: Vec<&dyn erased::Json> = args.iter().map(|a| a as &dyn erased::Json).collect();
    event_frame_erased(nsp, event, &refs, attachments, id)
}

/// EVENT with a single typed argument, serialised straight into the frame.
pub fn event_frame_one<T: Serialize + ?Sized>(
    nsp: &str,
    event: &str,
    data: &T,
) -> Result<Frame, EncodeError> {
    event_frame_erased(nsp, event, &[&data as &dyn erased::Json], Vec::new(), None)
}

fn event_frame_erased(
    nsp: &str,
    event: &str,
    args: &[&dyn erased::Json],
    attachments: Vec<Bytes>,
    id: Option<u64>,
) -> Result<Frame, EncodeError> {
    let kind = if attachments.is_empty() {
        PacketKind::Event
    } else {
        PacketKind::BinaryEvent
    };
    let mut buf = header(kind, nsp, attachments.len(), id);
    write_event_array(&mut buf, Some(event), args)?;
    Ok(finish(buf, attachments))
}

/// ACK (or BINARY_ACK) answering the client's packet `id`.
pub fn ack_frame(
    nsp: &str,
    id: u64,
    args: &[Value],
    attachments: Vec<Bytes>,
) -> Result<Frame, EncodeError> {
    let kind = if attachments.is_empty() {
        PacketKind::Ack
    } else {
        PacketKind::BinaryAck
    };
    let mut buf = header(kind, nsp, attachments.len(), Some(id));
    let refs: Vec<&dyn erased::Json> = args.iter().map(|a| a as &dyn erased::Json).collect();
    write_event_array(&mut buf, None, &refs)?;
    Ok(finish(buf, attachments))
}

/// CONNECT answer: `40{"sid":"…"}`.
pub fn connect_frame(nsp: &str, sid: &str) -> Frame {
    let mut buf = header(PacketKind::Connect, nsp, 0, None);
    buf.extend_from_slice(b"{\"sid\":");
    // A &str always serialises.
    let _ = serde_json::to_writer(&mut buf, sid);
    buf.push(b'}');
    finish(buf, Vec::new())
}

/// CONNECT_ERROR: `44{"message":"…"}`.
pub fn connect_error_frame(nsp: &str, message: &str) -> Frame {
    let mut buf = header(PacketKind::ConnectError, nsp, 0, None);
    buf.extend_from_slice(b"{\"message\":");
    let _ = serde_json::to_writer(&mut buf, message);
    buf.push(b'}');
    finish(buf, Vec::new())
}

/// DISCONNECT sent by the server: `41` / `41/chat,`.
pub fn disconnect_frame(nsp: &str) -> Frame {
    finish(header(PacketKind::Disconnect, nsp, 0, None), Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ok(text: &str) -> Packet {
        decode(text).unwrap_or_else(|e| panic!("{text:?} should parse: {e}"))
    }

    #[test]
    fn parses_connect_variants() {
        let p = ok("0");
        assert_eq!(
            (p.kind, p.nsp.as_str(), p.data),
            (PacketKind::Connect, "/", None)
        );
        let p = ok("0/custom,");
        assert_eq!((p.nsp.as_str(), p.data), ("/custom", None));
        let p = ok("0/custom");
        assert_eq!(p.nsp, "/custom");
        let p = ok(r#"0/custom,{"token":"abc"}"#);
        assert_eq!(p.data, Some(json!({"token":"abc"})));
        let p = ok(r#"0{"token":"123"}"#);
        assert_eq!(
            (p.nsp.as_str(), p.data),
            ("/", Some(json!({"token":"123"})))
        );
    }

    #[test]
    fn parses_events_acks_and_binary() {
        let p = ok(r#"2["message",1,"2",{"3":[true]}]"#);
        assert_eq!(p.kind, PacketKind::Event);
        assert_eq!(p.id, None);
        let p = ok(r#"2/chat,456["message-with-ack",1]"#);
        assert_eq!((p.nsp.as_str(), p.id), ("/chat", Some(456)));
        let p = ok(r#"3456[1,"2"]"#);
        assert_eq!((p.kind, p.id), (PacketKind::Ack, Some(456)));
        let p = ok(r#"52-789["m",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#);
        assert_eq!(
            (p.kind, p.attachments, p.id),
            (PacketKind::BinaryEvent, 2, Some(789))
        );
        let p = ok(r#"61-/x,7[{"_placeholder":true,"num":0}]"#);
        assert_eq!(
            (p.kind, p.nsp.as_str(), p.attachments),
            (PacketKind::BinaryAck, "/x", 1)
        );
        let p = ok("1/custom,");
        assert_eq!(
            (p.kind, p.nsp.as_str()),
            (PacketKind::Disconnect, "/custom")
        );
    }

    #[test]
    fn rejects_malformed_packets() {
        use ParseError::*;
        let cases = [
            ("", UnknownType),
            ("abc", UnknownType),
            ("9", UnknownType),
            ("2{}", InvalidPayload),
            ("2", InvalidPayload),
            ("2[]", InvalidPayload),
            ("2[1]", InvalidPayload),
            (r#"2["connect"]"#, InvalidPayload),
            (r#"2abc["message-with-ack",1]"#, InvalidJson),
            (r#"2["unterminated"#, InvalidJson),
            (r#"0"string""#, InvalidPayload),
            ("1{}", InvalidPayload),
            ("3[1]", InvalidPayload),
            (r#"5["m"]"#, BadAttachmentCount),
            (r#"5x-["m"]"#, BadAttachmentCount),
            (r#"51["m"]"#, BadAttachmentCount),
            (r#"599999999999999999999999-["m"]"#, BadAttachmentCount),
            (r#"51000000-["m"]"#, BadAttachmentCount),
            (r#"2999999999999999999999999["m"]"#, BadAckId),
        ];
        for (text, err) in cases {
            assert_eq!(decode(text), Err(err), "{text:?}");
        }
    }

    #[test]
    fn encodes_frames() {
        let f = event_frame("/", "message-back", &[json!(1), json!("2")], vec![]).unwrap();
        assert_eq!(&*f.text, r#"42["message-back",1,"2"]"#);
        let f = event_frame_one("/custom", "auth", &json!({})).unwrap();
        assert_eq!(&*f.text, r#"42/custom,["auth",{}]"#);
        let bin = vec![Bytes::from_static(&[1])];
        let f = event_frame("/", "m", &[placeholder(0)], bin.clone()).unwrap();
        assert_eq!(&*f.text, r#"451-["m",{"_placeholder":true,"num":0}]"#);
        assert_eq!(f.attachments, bin);
        let f = ack_frame("/", 456, &[json!(1)], vec![]).unwrap();
        assert_eq!(&*f.text, "43456[1]");
        let f = ack_frame("/", 789, &[placeholder(0)], bin).unwrap();
        assert_eq!(&*f.text, r#"461-789[{"_placeholder":true,"num":0}]"#);
        assert_eq!(&*connect_frame("/", "abc").text, r#"40{"sid":"abc"}"#);
        assert_eq!(
            &*connect_error_frame("/random", "Invalid namespace").text,
            r#"44/random,{"message":"Invalid namespace"}"#
        );
        assert_eq!(&*disconnect_frame("/x").text, "41/x,");
    }

    #[test]
    fn finds_placeholders() {
        assert_eq!(placeholder_index(&placeholder(3)), Some(3));
        assert_eq!(placeholder_index(&json!({"num": 1})), None);
        assert_eq!(placeholder_index(&json!("x")), None);
    }
}
