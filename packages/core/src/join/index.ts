/**
 * The join gate (`@tikron/core/join`): the one rule every host applies to a join before any
 * room — route, credential or reservation, relay, object name — and the one table of its
 * refusals (docs/architecture/join-path.md).
 *
 * @module @tikron/core/join
 */
export { admitJoin, admitRoute, routeJoin, UNCONFIGURED_TEXT, type JoinAdmitted, type JoinGateConfig, type JoinRefused, type JoinRequest, type JoinSeat, type JoinVerdict } from "./joinGate";
export { JOIN_REFUSALS, credentialRefusal, joinRefusal, routeRefusal, type CredentialRefusal, type JoinRefusal, type JoinRefusalKind, type JoinRefusalRow } from "./joinRefusals";
export { parseObjectName, relayObjectName, roomObjectName, type ObjectNameParts } from "./objectNames";
export { SEAT_RESERVATION_TTL_SECONDS, mintSeatReservation, reservationSecret, type HeldSeat } from "./seatReservations";
export { CallerGate, MAX_BACKOFF_MS, type GateRefusal } from "./callerGate";
export { checkOrigin, normaliseOrigin, parseAllowedOrigins, type OriginRequest, type OriginVerdict } from "./originPolicy";
