/** The launcher lives in tools/devserver (the load tool uses it too); kept here for test imports. */
export * from "../../../../tools/devserver/src/wranglerDev";
