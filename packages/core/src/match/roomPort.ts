import type { RoomMetadata } from "@tikron/protocol";
import type { PlayerClaims } from "../player";
import type { RoomStatus } from "./roomStatus";

/** How a matchmaker creates a room: the DEV_MODE overrides it is made with, and their key. */
export interface RoomCreation {
  /** Room option overrides and game params (DEV_MODE), passed to the room when it is created. */
  overrides: {
    /** Room option overrides (`RoomOptions` keys). */
    options: Record<string, unknown>;
    /** Game params (`world`, `aoi`). */
    params: Record<string, unknown>;
  };
  /** A canonical string of {@link overrides} ("" for none): rooms only match requests with the same key. */
  key: string;
}

/** No overrides. */
export const NO_OVERRIDES: RoomCreation = { overrides: { options: {}, params: {} }, key: "" };

/** One seat a matchmaker asks a room to hold. */
export interface SeatHold {
  /** The reservation id (unguessable); the join that uses it names it. */
  reservationId: string;
  /** The identity the seat is bound to: only a socket of that identity may take it. */
  identity: string;
  /** The sign-in claims the request was verified with (a JWT's, as the deployment names them): the seat's player gets them. */
  claims?: PlayerClaims;
}

/** A matchmaker's request to a room: hold these seats (all or none), making the room if asked. */
export interface SeatRequest {
  /** The room. */
  roomId: string;
  /** The seats to hold: one for a match, a whole group for a queue match. */
  seats: SeatHold[];
  /** How long each seat is held if unused (ms). */
  ttlMs: number;
  /** Joined by id: a private room may be joined (a public request never lands in one). */
  byId: boolean;
  /**
   * Create the room with this metadata and visibility if it does not exist yet; without it, a
   * room that does not exist is `not_found`.
   */
  create?: {
    /** The new room's metadata. */
    metadata: RoomMetadata;
    /** The new room is private. */
    private: boolean;
    /** DEV_MODE room option overrides and game params the room is made with, and their key. */
    creation: RoomCreation;
  };
}

/** Why a room refused to hold seats. */
export type SeatRefusalCode = "room_full" | "locked" | "not_found";

/** A room's answer: the seats are held, or why not; with the room's status either way when it exists. */
export type SeatAnswer =
  | {
      /** Every seat is held. */
      ok: true;
      /** The room after holding them. */
      status: RoomStatus;
    }
  | {
      /** Nothing was held. */
      ok: false;
      /** Why. */
      code: SeatRefusalCode;
      /** Human-readable reason. */
      reason: string;
      /** The room's status; absent when the room does not exist. */
      status?: RoomStatus;
    };

/** Seats a matchmaker gives back unused: a party member left before taking its seat. */
export interface SeatRelease {
  /** The room holding them. */
  roomId: string;
  /** The reservations to give up, each with the identity it is held for. */
  seats: SeatHold[];
}

/** A reservation still pending, as a room handing over to another passes it on (`Room.pendingReservations`). */
export interface PendingReservation {
  /** The reservation id (the one its join names). */
  id: string;
  /** The identity it is held for. */
  identity: string;
  /** How long it is still held (ms). */
  ttlMs: number;
  /** The claims it was made with, if any. */
  claims?: PlayerClaims;
}

/** How a matchmaker reaches the rooms of its kind (a Durable Object stub, or the Node host's room map). */
export interface RoomPort {
  /** Asks a room to hold seats (see {@link SeatRequest}). Rejects when the room cannot be reached. */
  reserve(req: SeatRequest): Promise<SeatAnswer>;
  /**
   * Has a room give up reservations not used yet (see {@link SeatRelease}); the room's status
   * after, or null when the room is not there. Without it a released seat waits for its
   * reservation to expire.
   */
  release?(req: SeatRelease): Promise<RoomStatus | null>;
}
