/**
 * What a game declares only as TypeScript types — its input, its JSON view, its room messages,
 * notices and JSON events (`defineMessages<M>()`, `defineNotices<N>()`, the type arguments of
 * `defineGameTypes`) — read with the TypeScript compiler API into a small model that an emitter
 * turns into another language's classes. Run-time declarations (the schema and its events) are
 * read off the value itself (emit step).
 */
import ts from "typescript";

/** A type as the emitters see it. */
export type TypeRef =
  | { t: "number" }
  | { t: "string" }
  | { t: "bool" }
  | { t: "json" }
  | { t: "void" }
  | { t: "nullable"; of: TypeRef }
  | { t: "list"; of: TypeRef }
  | { t: "dict"; of: TypeRef }
  | { t: "class"; name: string };

/** One property of a class. */
export interface PropModel {
  /** The JSON key. */
  key: string;
  /** Its type. */
  type: TypeRef;
  /** Declared with `?:`: left out of the JSON when absent. */
  optional: boolean;
  /** A string or boolean literal the property always holds (a union's discriminant). */
  literal?: string | boolean;
  /** The declaration's doc comment. */
  doc: string;
}

/** A class made of an object type (or of a union of object types). */
export interface ClassModel {
  /** Its name in the generated code. */
  name: string;
  /** Its properties. */
  props: PropModel[];
  /** A discriminated union: the base class of these subclasses, told apart by `discriminant`. */
  variants?: { name: string; value: string }[];
  /** The union's discriminant key. */
  discriminant?: string;
  /** The base class, for a variant. */
  base?: string;
  /** Doc comment. */
  doc: string;
}

/** What the declaration of one export holds as types. */
export interface DeclaredTypes {
  /** The input type (what `encodeInput` takes), or null. */
  input: TypeRef | null;
  /** The view type (JSON rooms; a binary room's is its schema's view). */
  state: TypeRef | null;
  /** The event type (JSON rooms; a binary room's are its schema's declared events). */
  event: TypeRef | null;
  /** Room messages: type name → request and response. */
  messages: { type: string; request: TypeRef; response: TypeRef }[];
  /** Notices: type name → payload. */
  notices: { type: string; data: TypeRef }[];
  /** Every class the types above refer to, by name. */
  classes: Map<string, ClassModel>;
}

/** PascalCase of a JSON key or type name (`ttt-json` → `TttJson`, `sprint` → `Sprint`). */
export function pascal(s: string): string {
  return s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");
}

/**
 * Reads the declared types of export `exportName` of `file` (one program for many calls: pass it).
 * The view and event types are read for JSON rooms only (`json`): a binary room's are its schema's.
 */
export function readDeclaredTypes(program: ts.Program, file: string, exportName: string, json: boolean): DeclaredTypes {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`${file} is not part of the program`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  const exported = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === exportName);
  if (!exported) throw new Error(`${file} exports no ${exportName}`);
  const declType = checker.getTypeOfSymbolAtLocation(exported, source);
  const classes = new Map<string, ClassModel>();

  const prop = (name: string): ts.Type | null => {
    const p = declType.getProperty(name);
    if (!p) return null;
    const t = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(p, source));
    return t.flags & ts.TypeFlags.Never ? null : t;
  };

  const docOf = (s: ts.Symbol | undefined): string => (s ? ts.displayPartsToString(s.getDocumentationComment(checker)).replace(/\s+/g, " ").trim() : "");

  const isNull = (t: ts.Type): boolean => (t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined | ts.TypeFlags.Void)) !== 0;

  const literalOf = (t: ts.Type): string | boolean | undefined => {
    if (t.isStringLiteral()) return t.value;
    if (t.flags & ts.TypeFlags.BooleanLiteral) return checker.typeToString(t) === "true";
    return undefined;
  };

  const nameFor = (t: ts.Type, hint: string): string => {
    const alias = t.aliasSymbol?.name;
    const sym = t.getSymbol()?.name;
    const named = alias ?? (sym && sym !== "__type" && sym !== "__object" ? sym : undefined);
    return pascal(named ?? hint);
  };

  const classFrom = (t: ts.Type, name: string, base?: string): ClassModel => {
    const props: PropModel[] = [];
    for (const p of checker.getPropertiesOfType(t)) {
      const optional = (p.flags & ts.SymbolFlags.Optional) !== 0;
      const pt = checker.getTypeOfSymbolAtLocation(p, source);
      const lit = literalOf(checker.getNonNullableType(pt));
      props.push({ key: p.name, type: ref(optional ? checker.getNonNullableType(pt) : pt, name + pascal(p.name)), optional, literal: lit, doc: docOf(p) });
    }
    return { name, props, base, doc: docOf(t.aliasSymbol ?? t.getSymbol()) };
  };

  const objectClass = (t: ts.Type, hint: string): TypeRef => {
    const name = nameFor(t, hint);
    if (!classes.has(name)) {
      classes.set(name, { name, props: [], doc: "" });
      classes.set(name, classFrom(t, name));
    }
    return { t: "class", name };
  };

  const unionClass = (members: ts.Type[], t: ts.Type, hint: string): TypeRef => {
    const name = nameFor(t, hint);
    if (classes.has(name)) return { t: "class", name };
    classes.set(name, { name, props: [], doc: "" });
    // A discriminated union: one key every member holds a distinct string literal under.
    const keys = checker.getPropertiesOfType(members[0]!).map((p) => p.name);
    const discriminant = keys.find((k) => {
      const values = members.map((m) => {
        const p = m.getProperty(k);
        return p ? literalOf(checker.getTypeOfSymbolAtLocation(p, source)) : undefined;
      });
      return values.every((v) => typeof v === "string") && new Set(values).size === members.length;
    });
    if (discriminant) {
      const variants = members.map((m) => {
        const value = literalOf(checker.getTypeOfSymbolAtLocation(m.getProperty(discriminant)!, source)) as string;
        const vname = nameFor(m, name + pascal(value));
        classes.set(vname, classFrom(m, vname, name));
        return { name: vname, value };
      });
      classes.set(name, { name, props: [], variants, discriminant, doc: docOf(t.aliasSymbol) });
      return { t: "class", name };
    }
    // Otherwise one class with every member's properties, each optional.
    const props = new Map<string, PropModel>();
    for (const m of members) for (const p of classFrom(m, name).props) props.set(p.key, { ...p, optional: true, literal: undefined });
    classes.set(name, { name, props: [...props.values()], doc: docOf(t.aliasSymbol) });
    return { t: "class", name };
  };

  /** A union of several non-null members: all strings, numbers or booleans, or all objects (a class). */
  function members(present: ts.Type[], t: ts.Type, hint: string): TypeRef {
    if (present.every((m) => m.flags & ts.TypeFlags.StringLike)) return { t: "string" };
    if (present.every((m) => m.flags & ts.TypeFlags.NumberLike)) return { t: "number" };
    if (present.every((m) => m.flags & ts.TypeFlags.BooleanLike)) return { t: "bool" };
    if (present.every((m) => m.flags & ts.TypeFlags.Object)) return unionClass(present, t, hint);
    return { t: "json" };
  }

  function ref(t: ts.Type, hint: string): TypeRef {
    if (t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return { t: "json" };
    if (t.flags & (ts.TypeFlags.Void | ts.TypeFlags.Undefined)) return { t: "void" };
    if (t.flags & ts.TypeFlags.NumberLike) return { t: "number" };
    if (t.flags & ts.TypeFlags.StringLike) return { t: "string" };
    if (t.flags & ts.TypeFlags.BooleanLike) return { t: "bool" };
    if (t.isUnion()) {
      const present = t.types.filter((m) => !isNull(m));
      const inner = present.length === 1 ? ref(present[0]!, hint) : members(present, t, hint);
      return present.length < t.types.length && inner.t !== "nullable" ? { t: "nullable", of: inner } : inner;
    }
    if (checker.isArrayType(t)) return { t: "list", of: ref(checker.getTypeArguments(t as ts.TypeReference)[0]!, hint + "Item") };
    if (t.flags & ts.TypeFlags.Object) {
      const index = checker.getIndexInfoOfType(t, ts.IndexKind.String);
      if (index && checker.getPropertiesOfType(t).length === 0) return { t: "dict", of: ref(index.type, hint + "Value") };
      if (t.getCallSignatures().length > 0) return { t: "json" };
      return objectClass(t, hint);
    }
    return { t: "json" };
  }

  const encode = prop("encodeInput");
  const inputType = encode?.getCallSignatures()[0]?.getParameters()[0];
  const input = inputType ? ref(checker.getTypeOfSymbolAtLocation(inputType, source), "Input") : null;
  const stateT = json ? prop("stateType") : null;
  const eventFn = json ? prop("decodeEvent") : null;
  const eventT = eventFn?.getCallSignatures()[0] ? checker.getNonNullableType(eventFn.getCallSignatures()[0]!.getReturnType()) : null;
  const messagesT = prop("messageTypes");
  const noticesT = prop("noticeTypes");
  const messages = messagesT
    ? checker.getPropertiesOfType(messagesT).map((p) => {
        const spec = checker.getTypeOfSymbolAtLocation(p, source);
        const part = (k: string): TypeRef => {
          const s = spec.getProperty(k);
          return s ? ref(checker.getTypeOfSymbolAtLocation(s, source), pascal(p.name) + pascal(k)) : { t: "void" };
        };
        return { type: p.name, request: part("request"), response: part("response") };
      })
    : [];
  const notices = noticesT ? checker.getPropertiesOfType(noticesT).map((p) => ({ type: p.name, data: ref(checker.getTypeOfSymbolAtLocation(p, source), pascal(p.name) + "Notice") })) : [];
  return {
    input,
    state: stateT ? ref(stateT, "View") : null,
    event: eventT && !(eventT.flags & ts.TypeFlags.Never) && !(eventT.flags & ts.TypeFlags.Unknown) ? ref(eventT, "Event") : null,
    messages,
    notices,
    classes,
  };
}

/** A program over `files` with the repository's compiler options (workspace packages resolve through node_modules). */
export function makeProgram(files: string[]): ts.Program {
  return ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: [],
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
  });
}
