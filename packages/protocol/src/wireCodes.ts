/**
 * The protocol's code tables as plain constants, one per member. The tables (`Kind` and
 * `FrameFlag` in constants.ts, `CloseCode` in errorCodes.ts, `FieldCode` in schema/field.ts,
 * `DeltaSection` in delta/deltaFormat.ts) are built from these, and the protocol's own code uses these: a bundler
 * inlines a constant, but keeps a whole table, every member's name with it, once one member is
 * read, and much of the protocol ships in each game's page. Internal to the package (not exported
 * from its index): everything outside it reads the tables.
 */

// Message kinds (Kind): client→server below 0x80, server→client from 0x80.
export const KIND_HELLO = 0x01;
export const KIND_INPUT = 0x02;
export const KIND_PING = 0x03;
export const KIND_STATS_REQUEST = 0x04;
export const KIND_LEAVE = 0x05;
export const KIND_RECEIPT = 0x06;
export const KIND_MESSAGE = 0x07;
export const KIND_WELCOME = 0x81;
export const KIND_FRAME = 0x82;
export const KIND_ERROR = 0x83;
export const KIND_PONG = 0x84;
export const KIND_STATS = 0x85;
export const KIND_REPLY = 0x86;
export const KIND_CADENCE = 0x87;
export const KIND_NOTICE = 0x88;
export const KIND_BUNDLE = 0x89;

// FRAME flag bits (FrameFlag).
export const FLAG_ACK = 1;
export const FLAG_EVENTS = 2;
export const FLAG_DELTA = 4;

// Field kinds (FieldCode): the numeric scalars first, so a position is a code below FIELD_BOOL.
export const FIELD_QUANT = 0;
export const FIELD_ANGLE = 1;
export const FIELD_U8 = 2;
export const FIELD_U16 = 3;
export const FIELD_VARUINT = 4;
export const FIELD_VARINT = 5;
export const FIELD_BOOL = 6;
export const FIELD_STRING = 7;
export const FIELD_MAP = 8;
// Input-only: a float sent whole (declared inputs; not entity or event fields).
export const FIELD_F32 = 9;
export const FIELD_F64 = 10;

// Delta body sections (DeltaSection), in the order they appear.
export const SECTION_LEAVES = 1;
export const SECTION_ENTERS = 2;
export const SECTION_UPDATES = 4;

// WebSocket close codes (CloseCode).
export const CLOSE_NORMAL = 1000;
export const CLOSE_GOING_AWAY = 1001;
export const CLOSE_PROTOCOL_ERROR = 4000;
export const CLOSE_BAD_HELLO = 4001;
export const CLOSE_ROOM_FULL = 4002;
export const CLOSE_RATE_LIMITED = 4003;
export const CLOSE_SLOW_CONSUMER = 4004;
export const CLOSE_REPLACED = 4005;
export const CLOSE_HELLO_TIMEOUT = 4006;
export const CLOSE_FRAME_TOO_LARGE = 4007;
export const CLOSE_ROOM_CLOSED = 4008;
export const CLOSE_JOIN_THROTTLED = 4009;
export const CLOSE_TOO_MANY_ERRORS = 4010;
export const CLOSE_UNAUTHORIZED = 4011;
export const CLOSE_FORBIDDEN = 4012;
export const CLOSE_NOT_FOUND = 4013;
export const CLOSE_BAD_REQUEST = 4014;
export const CLOSE_UNAVAILABLE = 4015;
export const CLOSE_RESERVATION_INVALID = 4020;
export const CLOSE_ROOM_LOCKED = 4021;
export const CLOSE_KICKED = 4022;
export const CLOSE_BANNED = 4023;
export const CLOSE_JOIN_REFUSED = 4024;
export const CLOSE_SPECTATORS_FULL = 4025;
