/**
 * The joins this Worker isolate refused before any room (core `HostRefusals`): counted by cause,
 * answered within each address's budget as an upgrade closed at once (a browser reads the close
 * code) and past it as a plain HTTP status (no socket pair), written to Analytics Engine once per
 * metrics interval (the first request after it writes the point) and shown by the admin API
 * (`GET /admin/api/refusals`, the isolate that answers).
 */
import { HostRefusals } from "@tikron/core";
import { metricsIntervalMs } from "@tikron/core/admin";
import { refusalCloseReason, type RefusalCause } from "@tikron/protocol";
import { metricsDataset, refusalsDataPoint, type OperationsEnv } from "./metricsDataPoint";
import { closedUpgrade } from "./upgradeRefusal";

/** This isolate's refusals. */
export const gatewayRefusals = new HostRefusals();

/** Whether `request` asks for a WebSocket upgrade. */
export function isUpgrade(request: Request): boolean {
  return request.headers.get("Upgrade")?.toLowerCase() === "websocket";
}

/**
 * A refusal as the client gets it: an upgrade is accepted and closed at once with `close` and the
 * reason (the wait in it, see the protocol's `refusalCloseReason`), since a browser cannot read
 * the HTTP status of a failed upgrade; any other request (curl, a health check) gets `status`,
 * with `Retry-After` when there is a wait. `plain` answers an upgrade with the bare status (only
 * final refusals are plain, so there is no wait to name).
 */
export function refusalAnswer(request: Request, status: number, reason: string, close: number, retryAfterMs: number, plain = false): Response {
  if (isUpgrade(request)) {
    if (!plain) return closedUpgrade(close, refusalCloseReason(reason, retryAfterMs));
    // Past its address's budget: the status alone, no body for the runtime to stream.
    return new Response(null, { status });
  }
  const headers: Record<string, string> = { "content-type": "text/plain; charset=utf-8" };
  if (retryAfterMs > 0) headers["retry-after"] = String(Math.ceil(retryAfterMs / 1000));
  return new Response(reason, { status, headers });
}

/**
 * The gateway's own refusal of `cause` (see {@link refusalAnswer}), counted; an upgrade from an
 * address past its budget of final refusals is answered plain.
 */
export function refuseJoin(request: Request, cause: RefusalCause, status: number, reason: string, close: number, retryAfterMs = 0): Response {
  gatewayRefusals.count(cause);
  const plain = isUpgrade(request) && !gatewayRefusals.upgradeAllowed(request.headers.get("CF-Connecting-IP"), Date.now(), cause);
  return refusalAnswer(request, status, reason, close, retryAfterMs, plain);
}

/** Writes this isolate's refusals since its last point, once the metrics interval has passed (nothing without a `METRICS` binding). */
export function reportRefusals(env: OperationsEnv): void {
  const dataset = metricsDataset(env);
  if (!dataset) return;
  const report = gatewayRefusals.takeReport(Date.now(), metricsIntervalMs(env));
  if (report) dataset.writeDataPoint(refusalsDataPoint(report));
}
