import { startWranglerDev } from "@tikron/devserver";
const root = process.argv[2]!;
const s = await startWranglerDev({ config: "wrangler.staging.jsonc", root });
console.log(`READY ${s.wsUrl} ${s.pid}`);
process.on("SIGTERM", async () => { await s.stop(); process.exit(0); });
process.on("SIGINT", async () => { await s.stop(); process.exit(0); });
setInterval(() => {}, 1 << 30);
