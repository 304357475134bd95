/** The watchdog lives in tools/devserver next to the launcher; kept here for test imports. */
export * from "../../../../tools/devserver/src/watchdogProcess";
