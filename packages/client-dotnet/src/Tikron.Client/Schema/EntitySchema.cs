using System;
using System.Collections.Generic;
using System.Text;

namespace Tikron.Client.Schema
{
    /// <summary>One declared field, resolved: its name, its position in its type, its kind.</summary>
    public sealed class FieldInfo
    {
        /// <summary>The field's name in the declaration.</summary>
        public string Name { get; }
        /// <summary>Position in its type: bit in the update mask, slot in a record.</summary>
        public int Index { get; }
        /// <summary>The declared field.</summary>
        public Field Field { get; }

        /// <summary>Field <paramref name="name"/> at <paramref name="index"/>.</summary>
        public FieldInfo(string name, int index, Field field)
        {
            Name = name;
            Index = index;
            Field = field;
        }
    }

    /// <summary>A set of named fields in wire order: an entity type or an event kind.</summary>
    public class FieldSet
    {
        /// <summary>Most fields one type may declare (the update mask is one 32-bit word).</summary>
        public const int MaxFields = 32;

        /// <summary>The type's name.</summary>
        public string Name { get; }
        /// <summary>Wire tag: its position in the declaration.</summary>
        public int Index { get; }
        /// <summary>Its fields, in declaration order.</summary>
        public IReadOnlyList<FieldInfo> Fields { get; }
        /// <summary>True when some field is a string (records keep a slot for strings).</summary>
        public bool HasStrings { get; }
        /// <summary>True when some field is a map.</summary>
        public bool HasMaps { get; }

        readonly Dictionary<string, int> _byName = new Dictionary<string, int>();

        /// <summary>Resolves the fields of <paramref name="name"/>.</summary>
        public FieldSet(string name, int index, IReadOnlyList<(string Name, Field Field)> fields)
        {
            if (fields.Count > MaxFields) throw new ArgumentOutOfRangeException(nameof(fields), $"{name}: at most {MaxFields} fields");
            Name = name;
            Index = index;
            var list = new FieldInfo[fields.Count];
            for (int i = 0; i < fields.Count; i++)
            {
                list[i] = new FieldInfo(fields[i].Name, i, fields[i].Field);
                _byName[fields[i].Name] = i;
                HasStrings |= fields[i].Field.Code == FieldCode.String;
                HasMaps |= fields[i].Field.Code == FieldCode.Map;
            }
            Fields = list;
        }

        /// <summary>The index of field <paramref name="name"/>, or -1.</summary>
        public int FieldIndex(string name) => _byName.TryGetValue(name, out int i) ? i : -1;

        /// <summary>Canonical text (<c>name{field:descriptor,…}</c>) as schema hashes are built from.</summary>
        public string Text()
        {
            var sb = new StringBuilder(Name).Append('{');
            for (int i = 0; i < Fields.Count; i++)
            {
                if (i > 0) sb.Append(',');
                sb.Append(Fields[i].Name).Append(':').Append(Fields[i].Field.Descriptor);
            }
            return sb.Append('}').ToString();
        }
    }

    /// <summary>One declared entity type.</summary>
    public sealed class EntityType : FieldSet
    {
        /// <summary>One bit per field.</summary>
        public int AllMask { get; }

        /// <summary>Entity type <paramref name="name"/> with its fields.</summary>
        public EntityType(string name, int index, IReadOnlyList<(string Name, Field Field)> fields) : base(name, index, fields)
        {
            AllMask = fields.Count == 32 ? -1 : (1 << fields.Count) - 1;
        }
    }

    /// <summary>
    /// A room's entity schema (and its declared events and inputs), the same declaration as the TypeScript
    /// <c>defineSchema</c>: types and fields in wire order, and the hash the welcome carries. Generated
    /// game types build one (see docs/csharp.md); <see cref="Hash"/> is computed here from the
    /// canonical text exactly as the server computes it.
    /// </summary>
    public sealed class EntitySchema
    {
        /// <summary>The entity types, in declaration order (wire tags 0, 1, …).</summary>
        public IReadOnlyList<EntityType> Types { get; }
        /// <summary>The declared events, or null.</summary>
        public EventSchema? Events { get; }
        /// <summary>The declared inputs, or null (the game's inputs are then bytes of its own codec).</summary>
        public InputSchema? Inputs { get; }
        /// <summary>The u32 hash of the declaration (what the welcome's <c>schemaHash</c> must equal).</summary>
        public uint Hash { get; }

        /// <summary>A schema of <paramref name="types"/> (name and fields, in order), optional events and optional declared inputs.</summary>
        public EntitySchema(IReadOnlyList<(string Name, (string Name, Field Field)[] Fields)> types, EventSchema? events = null, InputSchema? inputs = null)
        {
            if (types.Count < 1 || types.Count > 256) throw new ArgumentOutOfRangeException(nameof(types), "1..256 entity types");
            var list = new EntityType[types.Count];
            var canonical = new StringBuilder("tikron-schema-1");
            for (int i = 0; i < types.Count; i++)
            {
                list[i] = new EntityType(types[i].Name, i, types[i].Fields);
                canonical.Append('|').Append(list[i].Text());
            }
            Types = list;
            Events = events;
            Inputs = inputs;
            // Each appended only when declared, as the TypeScript schema does.
            if (events != null) canonical.Append("|events:").Append(events.Descriptor);
            if (inputs != null) canonical.Append("|inputs:").Append(inputs.Descriptor);
            Hash = Fnv1a32(canonical.ToString());
        }

        /// <summary>The type named <paramref name="name"/>, or null.</summary>
        public EntityType? Type(string name)
        {
            foreach (var t in Types) if (t.Name == name) return t;
            return null;
        }

        /// <summary>FNV-1a (32-bit) over a string's UTF-16 code units: the schema hash.</summary>
        public static uint Fnv1a32(string text)
        {
            uint h = 0x811c9dc5;
            foreach (char c in text)
            {
                h ^= c;
                h *= 0x01000193;
            }
            return h;
        }
    }
}
