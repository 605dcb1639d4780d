package zkrecipes;

import java.util.List;
import java.util.Map;

/**
 * A minimal JSON writer for the workers' one-object-per-line output. Nanosecond timestamps are
 * written as strings because they do not fit in a JavaScript number without losing precision.
 */
final class Json {
    private Json() {}

    static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                default:
                    if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || Character.isSurrogate(c)) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
            }
        }
        return b.append('"').toString();
    }

    /** Writes maps, lists, long[] arrays, strings, numbers, booleans and null. */
    static String write(Object value) {
        StringBuilder b = new StringBuilder();
        append(b, value);
        return b.toString();
    }

    private static void append(StringBuilder b, Object value) {
        if (value == null) {
            b.append("null");
        } else if (value instanceof String) {
            b.append(quote((String) value));
        } else if (value instanceof Number || value instanceof Boolean) {
            b.append(value);
        } else if (value instanceof long[]) {
            long[] a = (long[]) value;
            b.append('[');
            for (int i = 0; i < a.length; i++) {
                if (i > 0) b.append(',');
                b.append(a[i]);
            }
            b.append(']');
        } else if (value instanceof Map) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                if (!first) b.append(',');
                first = false;
                b.append(quote(String.valueOf(e.getKey()))).append(':');
                append(b, e.getValue());
            }
            b.append('}');
        } else if (value instanceof List) {
            b.append('[');
            boolean first = true;
            for (Object item : (List<?>) value) {
                if (!first) b.append(',');
                first = false;
                append(b, item);
            }
            b.append(']');
        } else {
            b.append(quote(value.toString()));
        }
    }
}
