/**
 * The C# emitter: a game's declaration (its run-time schema and events, and the types read by
 * `typeModel.ts`) as one C# file for the SDK in packages/client-dotnet: the schema with the hash
 * the server checks, typed entity views, event classes, and classes for its input, JSON view,
 * room messages and notices, with their JSON conversions and typed connection helpers.
 */
import { FieldCode, type AnyGameTypes, type Field, type FieldInfo, type InputSchema, type JoinOption, type JoinOptionsDecl } from "@tikron/protocol";
import { pascal, type ClassModel, type DeclaredTypes, type PropModel, type TypeRef } from "./typeModel";

/** Where the C# goes and what it is called. */
export interface CsharpTarget {
  /** The C# namespace, e.g. `Tikron.Games.Agar`. */
  namespace: string;
  /** The static class holding the game's constants and helpers, e.g. `AgarGame`. */
  game: string;
  /** Where it came from (`<module>#<export>`), for the header. */
  source: string;
  /** The command that made it, for the header. */
  command: string;
}

const num = (v: number): string => {
  const s = String(v);
  return /^-?\d+$/.test(s) ? s : s.includes("e") ? s : s;
};

/** The C# expression building a declared field. */
function fieldExpr(f: Field): string {
  switch (f.code) {
    case FieldCode.Quant:
      return `Field.Quant(${num(f.min)}, ${num(f.max)}, ${num(f.step)})`;
    case FieldCode.Angle:
      return `Field.QuantAngle(${Math.log2(f.levels)})`;
    case FieldCode.U8:
      return "Field.U8()";
    case FieldCode.U16:
      return "Field.U16()";
    case FieldCode.VarUint:
      return "Field.VarUint()";
    case FieldCode.VarInt:
      return "Field.VarInt()";
    case FieldCode.Bool:
      return "Field.Bool()";
    case FieldCode.String:
      return `Field.String(${f.maxLen})`;
    case FieldCode.F32:
      return `Field.F32(${num(f.min)}, ${num(f.max)})`;
    case FieldCode.F64:
      return `Field.F64(${num(f.min)}, ${num(f.max)})`;
    default:
      return `Field.Map(${fieldExpr(f.value!)}, ${f.maxLen})`;
  }
}

/** The C# type and getter of a field read off a record. */
function fieldAccess(f: Field, index: number): [string, string] {
  switch (f.code) {
    case FieldCode.Quant:
    case FieldCode.Angle:
      return ["double", `GetNumber(${index})`];
    case FieldCode.VarUint:
      return ["uint", `GetUInt(${index})`];
    case FieldCode.Bool:
      return ["bool", `GetBool(${index})`];
    case FieldCode.String:
      return ["string", `GetString(${index})`];
    case FieldCode.Map:
      return ["MapView", `GetMap(${index})`];
    default:
      return ["int", `GetInt(${index})`];
  }
}

const fieldsExpr = (fields: readonly FieldInfo[]): string => `new (string, Field)[] { ${fields.map((f) => `("${f.name}", ${fieldExpr(f.field)})`).join(", ")} }`;

/** Escapes a doc comment for XML. */
/** A doc comment from TypeScript as XML text: `{@link X}` as X, markup characters escaped. */
const xml = (s: string): string => s.replace(/\{@link\s+([^}\s]+)[^}]*\}/g, "$1").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
/** A summary line (`text` is XML already: pass TypeScript docs through {@link xml}). */
const summary = (indent: string, text: string): string => `${indent}/// <summary>${text}</summary>\n`;

/** The C# type of a type reference. */
function csType(r: TypeRef): string {
  switch (r.t) {
    case "number":
      return "double";
    case "string":
      return "string";
    case "bool":
      return "bool";
    case "json":
    case "void":
      return "JsonValue";
    case "nullable":
      return `${csType(r.of)}?`;
    case "list":
      return `List<${csType(r.of)}>`;
    case "dict":
      return `Dictionary<string, ${csType(r.of)}>`;
    case "class":
      return r.name;
  }
}

const isValue = (r: TypeRef): boolean => r.t === "number" || r.t === "bool";

/** A C# expression reading `e` (a `JsonValue?`) as `r`. */
function fromJson(r: TypeRef, e: string): string {
  switch (r.t) {
    case "number":
      return `JsonConvert.Num(${e})`;
    case "string":
      return `JsonConvert.Str(${e})`;
    case "bool":
      return `JsonConvert.Bool(${e})`;
    case "json":
    case "void":
      return `JsonConvert.Any(${e})`;
    case "nullable":
      return `(JsonConvert.IsNull(${e}) ? (${csType(r.of)}?)null : ${fromJson(r.of, e)})`;
    case "list":
      return `JsonConvert.List(${e}, x => ${fromJson(r.of, "x")})`;
    case "dict":
      return `JsonConvert.Dict(${e}, x => ${fromJson(r.of, "x")})`;
    case "class":
      return `${r.name}.FromJson(${e})`;
  }
}

/** A C# expression writing `e` (of type `r`) as a `JsonValue`. */
function toJson(r: TypeRef, e: string): string {
  switch (r.t) {
    case "number":
    case "string":
    case "bool":
      return `JsonValue.From(${e})`;
    case "json":
    case "void":
      return `(${e} ?? JsonValue.Null)`;
    case "nullable":
      return `(${e} == null ? JsonValue.Null : ${toJson(r.of, isValue(r.of) ? `${e}.Value` : e)})`;
    case "list":
      return `JsonConvert.FromList(${e}, x => ${toJson(r.of, "x")})`;
    case "dict":
      return `JsonConvert.FromDict(${e}, x => ${toJson(r.of, "x")})`;
    case "class":
      return `${e}.ToJson()`;
  }
}

/** The C# type of a property: optional ones are nullable. */
function propType(p: PropModel): TypeRef {
  return p.optional && p.type.t !== "nullable" ? { t: "nullable", of: p.type } : p.type;
}

function initializer(r: TypeRef, classes: Map<string, ClassModel>): string {
  switch (r.t) {
    case "string":
      return ' = "";';
    case "json":
    case "void":
      return " = JsonValue.Null;";
    case "list":
    case "dict":
      return ` = new ${csType(r)}();`;
    case "class":
      return classes.get(r.name)?.variants ? " = null!;" : ` = new ${r.name}();`;
    default:
      return ";";
  }
}

function emitClass(c: ClassModel, classes: Map<string, ClassModel>, extra: string): string {
  let out = summary("    ", c.doc ? xml(c.doc) : `${c.name}, as the game's TypeScript declares it.`);
  if (c.variants) {
    out += `    public abstract partial class ${c.name}\n    {\n`;
    out += `        /// <summary>The JSON form.</summary>\n        public abstract JsonValue ToJson();\n\n`;
    out += `        /// <summary>Reads the variant <c>${c.discriminant}</c> names.</summary>\n        public static ${c.name} FromJson(JsonValue? j) => JsonConvert.Str(j?["${c.discriminant}"]) switch\n        {\n`;
    for (const v of c.variants) out += `            "${v.value}" => ${v.name}.FromJson(j),\n`;
    out += `            var k => throw new System.FormatException("${c.name}: unknown ${c.discriminant} " + k),\n        };\n${extra}    }\n\n`;
    return out;
  }
  out += `    public ${c.base ? "sealed " : ""}partial class ${c.name}${c.base ? ` : ${c.base}` : ""}\n    {\n`;
  const settable = c.props.filter((p) => !(c.base && p.literal !== undefined));
  for (const p of settable) {
    const t = propType(p);
    out += summary("        ", p.doc ? xml(p.doc) : `<c>${p.key}</c>`) + `        public ${csType(t)} ${pascal(p.key)}${p.optional ? ";" : initializer(t, classes)}\n`;
  }
  out += `\n        /// <summary>Reads one from its JSON form.</summary>\n        public static ${c.base ? "new " : ""}${c.name} FromJson(JsonValue? j) => new ${c.name}\n        {\n`;
  for (const p of settable) out += `            ${pascal(p.key)} = ${fromJson(propType(p), `j?["${p.key}"]`)},\n`;
  out += `        };\n\n        /// <summary>The JSON form.</summary>\n        public ${c.base ? "override " : ""}JsonValue ToJson()\n        {\n            var o = JsonValue.NewObject();\n`;
  for (const p of c.props) {
    if (c.base && p.literal !== undefined) out += `            o.Set("${p.key}", ${JSON.stringify(p.literal)});\n`;
    else if (p.optional) out += `            if (${pascal(p.key)} != null) o.Set("${p.key}", ${toJson(propType(p), pascal(p.key))});\n`;
    else out += `            o.Set("${p.key}", ${toJson(p.type, pascal(p.key))});\n`;
  }
  out += `            return o;\n        }\n${extra}    }\n\n`;
  return out;
}

/**
 * The `Encode` of a game's input class when its schema declares the inputs: the declaration's
 * writer (`InputSchema.Encode`) fed the class's properties in declaration order (booleans as 1 or
 * 0); for an input of kinds, the base class switches on its variants by their `kind`.
 */
function declaredEncode(c: ClassModel, inputs: InputSchema<unknown>, game: string): string {
  const args = (fields: readonly FieldInfo[], of: string): string =>
    fields.map((f) => (f.field.code === FieldCode.Bool ? `${of}${pascal(f.name)} ? 1 : 0` : `${of}${pascal(f.name)}`)).join(", ");
  const doc = `        /// <summary>The input's payload, written by the game's declared inputs (<see cref="${game}.Inputs"/>).</summary>
`;
  if (!inputs.tagged) return `
${doc}        public byte[] Encode(WireWriter w) => ${game}.Inputs.Encode(w, 0${inputs.kinds[0]!.fields.length ? ", " : ""}${args(inputs.kinds[0]!.fields, "")});
`;
  let out = `
${doc}        public byte[] Encode(WireWriter w) => this switch
        {
`;
  for (const k of inputs.kinds) {
    const v = c.variants?.find((x) => x.value === k.name);
    if (!v) throw new Error(`input kind ${k.name} has no class among ${c.name}'s variants`);
    out += `            ${v.name} i => ${game}.Inputs.Encode(w, ${k.index}${k.fields.length ? ", " : ""}${args(k.fields, "i.")}),
`;
  }
  return out + `            _ => throw new System.ArgumentException("undeclared input " + GetType().Name),
        };
`;
}

/** The C# type of a join option's value (nullable: an option left out is not sent). */
function joinOptionType(o: JoinOption): string {
  switch (o.kind) {
    case "int":
      return "long?";
    case "number":
      return "double?";
    case "flag":
      return "bool?";
    default:
      return "string?";
  }
}

/** What a join option accepts, for its doc comment. */
function joinOptionRule(o: JoinOption): string {
  const rule =
    o.kind === "oneOf" ? `one of ${o.values!.map((v) => JSON.stringify(v)).join(", ")}`
    : o.kind === "text" ? `a string of at most ${o.max} characters`
    : o.kind === "flag" ? "true or false"
    : `${o.kind === "int" ? "a whole number" : "a number"} in ${o.min}..${o.max}`;
  return o.default === undefined ? rule : `${rule}; the room gives ${JSON.stringify(o.default)} when it is left out`;
}

/**
 * The class of a game's declared join options (`defineJoinOptions`): one nullable property per
 * option (left out of the JSON when null, as a TypeScript client leaves it out), and its JSON form
 * for `ConnectOptions.JoinOptions`. The room checks them; nothing is checked here.
 */
function joinOptionsClass(decl: JoinOptionsDecl): string {
  let out = summary("    ", "The game's join options: what a player may choose when joining (the room checks them before a seat is taken, and refuses others <c>bad_request</c> naming the option). Set those you choose.");
  out += "    public sealed partial class JoinOptions\n    {\n";
  for (const [name, o] of Object.entries(decl.fields)) out += summary("        ", `<c>${name}</c>: ${xml(joinOptionRule(o))}.`) + `        public ${joinOptionType(o)} ${pascal(name)};\n`;
  out += `\n        /// <summary>The JSON form, for <see cref="ConnectOptions.JoinOptions"/>.</summary>\n        public JsonValue ToJson()\n        {\n            var o = JsonValue.NewObject();\n`;
  for (const [name, o] of Object.entries(decl.fields)) out += `            if (${pascal(name)} != null) o.Set("${name}", JsonValue.From(${pascal(name)}${o.kind === "oneOf" || o.kind === "text" ? "" : ".Value"}));\n`;
  return out + "            return o;\n        }\n    }\n\n";
}

/** The whole C# file for one game. */
export function emitCsharp(game: AnyGameTypes, types: DeclaredTypes, target: CsharpTarget): string {
  const schema = game.schema;
  const events = schema?.events ?? null;
  const inputs = schema?.inputs ?? null;
  const inputClass = types.input?.t === "class" ? types.input.name : null;
  let out = `// <auto-generated>\n// ${target.command}\n// from ${target.source}. Do not edit: run the command again (a test fails when this file is stale).\n// </auto-generated>\n`;
  out += "#nullable enable\nusing System.Collections.Generic;\nusing System.Threading.Tasks;\nusing Tikron.Client;\nusing Tikron.Client.Json;\nusing Tikron.Client.Protocol;\nusing Tikron.Client.Schema;\n\n";
  out += `namespace ${target.namespace}\n{\n`;
  out += summary("    ", `The ${game.kind} game's declaration: its kind, ${schema ? "schema and hash" : "JSON dialect"}, and typed helpers on a connection.`);
  out += `    public static partial class ${target.game}\n    {\n`;
  out += `        /// <summary>The room kind.</summary>\n        public const string Kind = "${game.kind}";\n`;
  if (schema) {
    out += `        /// <summary>The schema hash the server's welcome carries (the schema below computes the same).</summary>\n        public const uint SchemaHash = ${schema.hash}u;\n`;
    // Before the schema, which takes it: static fields start in the order they are written.
    if (inputs) {
      out += `        /// <summary>The declared inputs: what <c>Encode</c> writes and the room reads.</summary>\n        public static readonly InputSchema Inputs = new InputSchema(new (string, (string, Field)[])[]\n        {\n`;
      for (const k of inputs.kinds) out += `            ("${k.name}", ${fieldsExpr(k.fields)}),\n`;
      out += `        }, tagged: ${inputs.tagged});\n`;
    }
    const declared = [events && "events", inputs && "inputs"].filter(Boolean).join(" and ");
    out += `        /// <summary>The entity schema${declared ? ` and its declared ${declared}` : ""}.</summary>\n        public static readonly EntitySchema Schema = new EntitySchema(new (string, (string, Field)[])[]\n        {\n`;
    for (const t of schema.types) out += `            ("${t.name}", ${fieldsExpr(t.fields)}),\n`;
    const eventsExpr = events ? `new EventSchema(new (string, (string, Field)[])[]\n        {\n${events.kinds.map((k) => `            ("${k.name}", ${fieldsExpr(k.fields)}),\n`).join("")}        })` : "";
    out += `        }${events ? `, ${eventsExpr}` : inputs ? ", null" : ""}${inputs ? ", Inputs" : ""});\n`;
  }
  out += `\n        /// <summary>Connection options for a room of this game (kind, ${schema ? "schema" : "dialect"}); set the room and the rest.</summary>\n`;
  const joinOptions = game.joinOptions && Object.keys(game.joinOptions.fields).length > 0 ? game.joinOptions : null;
  if (joinOptions && types.classes.has("JoinOptions")) throw new Error(`${target.source}: a type named JoinOptions clashes with the generated join options class`);
  if (joinOptions) out += `        /// <param name="room">The room id.</param>\n        /// <param name="joinOptions">The player's join options (sent in every hello, and with the matchmaker's requests).</param>\n`;
  out += `        public static ConnectOptions Options(string room = ""${joinOptions ? ", JoinOptions? joinOptions = null" : ""}) => new ConnectOptions { Kind = Kind, Room = room, ${schema ? "Schema = Schema" : "Dialect = ClientDialect.Json"}${joinOptions ? ", JoinOptions = joinOptions?.ToJson()" : ""} };\n`;
  if (types.input) {
    const t = csType(types.input);
    if (schema) {
      out += `\n        /// <summary>Sends one input, encoded by its <c>Encode</c>; its seq, or -1 while not joined.</summary>\n        public static long SendInput(this RoomConnection room, ${t} input) => room.SendInput(input.Encode(new WireWriter(64)));\n`;
    } else {
      out += `\n        /// <summary>Sends one input as JSON; its seq, or -1 while not joined.</summary>\n        public static long SendInput(this RoomConnection room, ${t} input) => room.SendInput(${toJson(types.input, "input")});\n`;
    }
  }
  if (types.state && !schema) out += `\n        /// <summary>The room's latest view, or null before the first.</summary>\n        public static ${csType(types.state)}? ReadState(RoomConnection room) => room.JsonState == null ? null : ${fromJson(types.state, "room.JsonState")};\n`;
  if (types.event && !schema) out += `\n        /// <summary>A JSON event as the game declares it.</summary>\n        public static ${csType(types.event)} ReadEvent(GameEvent e) => ${fromJson(types.event, "e.Json")};\n`;
  for (const m of types.messages) {
    const name = pascal(m.type);
    const req = m.request.t === "void" ? "" : `, ${csType(m.request)} request`;
    const payload = m.request.t === "void" ? "JsonValue.Null" : toJson(m.request, "request");
    out += `\n        /// <summary>Sends the <c>${m.type}</c> message, wanting no answer; false while not joined.</summary>\n        public static bool Send${name}(this RoomConnection room${req}) => room.Send("${m.type}", ${payload});\n`;
    if (m.response.t === "void") out += `\n        /// <summary>Sends the <c>${m.type}</c> message and waits for the room's answer (a RequestException on refusal).</summary>\n        public static async Task Request${name}(this RoomConnection room${req}, int timeoutMs = 5000) => await room.Request("${m.type}", ${payload}, timeoutMs);\n`;
    else out += `\n        /// <summary>Sends the <c>${m.type}</c> request; completes with the reply (a RequestException on refusal).</summary>\n        public static async Task<${csType(m.response)}> Request${name}(this RoomConnection room${req}, int timeoutMs = 5000) => ${fromJson(m.response, `await room.Request("${m.type}", ${payload}, timeoutMs)`)};\n`;
  }
  if (types.notices.length > 0) {
    out += `\n        /// <summary>A notice's payload as the game declares it (null for a type it does not declare, e.g. the operator's <c>tk:notice</c>).</summary>\n        public static object? ReadNotice(NoticeMessage n) => n.Type switch\n        {\n`;
    for (const n of types.notices) out += `            "${n.type}" => ${fromJson(n.data, "n.Data")},\n`;
    out += `            _ => null,\n        };\n`;
  }
  if (events) out += `\n        /// <summary>A declared event, typed (null when the event is not a declared one).</summary>\n        public static ${pascal(game.kind)}Event? ReadEvent(GameEvent e) => e.Declared == null ? null : ${pascal(game.kind)}Event.From(e.Declared);\n`;
  out += "    }\n\n";
  if (schema) {
    for (const t of schema.types) {
      const name = pascal(t.name);
      out += summary("    ", `A <c>${t.name}</c> entity in view (a typed look at the view's record, live).`);
      out += `    public readonly struct ${name}\n    {\n        /// <summary>The entity.</summary>\n        public readonly ViewEntity Entity;\n        /// <summary>A typed look at <paramref name="entity"/>.</summary>\n        public ${name}(ViewEntity entity) { Entity = entity; }\n`;
      out += `        /// <summary>True when <paramref name="e"/> is a <c>${t.name}</c>.</summary>\n        public static bool Is(ViewEntity e) => e.EntityType.Index == ${t.index};\n        /// <summary>The entity's wire id.</summary>\n        public int Id => Entity.Id;\n`;
      for (const f of t.fields) {
        const [type, get] = fieldAccess(f.field, f.index);
        out += `        /// <summary><c>${f.name}</c>: ${f.field.descriptor}</summary>\n        public ${type} ${pascal(f.name)} => Entity.${get};\n`;
      }
      out += "    }\n\n";
    }
  }
  if (events) {
    const base = `${pascal(game.kind)}Event`;
    out += summary("    ", `A declared event of ${game.kind}.`);
    out += `    public abstract class ${base}\n    {\n        /// <summary>The typed event of a decoded one.</summary>\n        public static ${base} From(DeclaredEvent e) => e.Kind.Index switch\n        {\n`;
    for (const k of events.kinds) out += `            ${k.index} => new ${pascal(k.name)}Event(e),\n`;
    out += `            _ => throw new System.ArgumentException("unknown event kind " + e.Kind.Name),\n        };\n    }\n\n`;
    for (const k of events.kinds) {
      out += summary("    ", `The <c>${k.name}</c> event.`);
      out += `    public sealed class ${pascal(k.name)}Event : ${base}\n    {\n`;
      for (const f of k.fields) out += `        /// <summary><c>${f.name}</c>: ${f.field.descriptor}</summary>\n        public readonly ${fieldAccess(f.field, f.index)[0]} ${pascal(f.name)};\n`;
      out += `        internal ${pascal(k.name)}Event(DeclaredEvent e)\n        {\n${k.fields.map((f) => `            ${pascal(f.name)} = e.${fieldAccess(f.field, f.index)[1]};\n`).join("")}        }\n    }\n\n`;
    }
  }
  if (joinOptions) out += joinOptionsClass(joinOptions);
  for (const c of [...types.classes.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    const own = `\n        /// <summary>The input's payload: the game's own codec (hand-written beside this file; a game that declares its inputs gets it generated).</summary>\n        public partial byte[] Encode(WireWriter w);\n`;
    const codec = schema && c.name === inputClass && !c.base ? (inputs ? declaredEncode(c, inputs, target.game) : own) : "";
    out += emitClass(c, types.classes, codec);
  }
  return (out.trimEnd() + "\n}\n").replace(/\n\n\n+/g, "\n\n").replace(/\n\n(\s*})/g, "\n$1");
}
