package io.docmirror.sql.flight;

import com.google.protobuf.ProtocolMessageEnum;

import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * One answer to a Flight SQL {@code GetSqlInfo} id, in one of the six value types of the {@code value} dense union
 * of {@code GET_SQL_INFO_SCHEMA} (its type ids 0 to 5, in this order).
 */
sealed interface SqlInfoValue {
    /** Type id 0, {@code string_value}. */
    record Text(String value) implements SqlInfoValue {
        public Text {
            requireNonNull(value, "value is null");
        }
    }

    /** Type id 1, {@code bool_value}. */
    record Flag(boolean value) implements SqlInfoValue {
    }

    /** Type id 2, {@code bigint_value}. */
    record Number(long value) implements SqlInfoValue {
    }

    /** Type id 3, {@code int32_bitmask}: a bit per enum value ({@code 1 << number}), or a plain int32. */
    record Int32(int value) implements SqlInfoValue {
        static Int32 bitmask(ProtocolMessageEnum... values) {
            int mask = 0;
            for (ProtocolMessageEnum value : values) {
                mask |= 1 << value.getNumber();
            }
            return new Int32(mask);
        }
    }

    /** Type id 4, {@code string_list}. */
    record Texts(List<String> values) implements SqlInfoValue {
        public Texts {
            values = List.copyOf(values);
        }
    }

    /** Type id 5, {@code int32_to_int32_list_map}. */
    record IntListMap(Map<Integer, List<Integer>> values) implements SqlInfoValue {
        public IntListMap {
            requireNonNull(values, "values is null");
            values = Map.copyOf(values);
        }
    }

    /** The value's type id in the dense union. */
    default byte typeId() {
        if (this instanceof Text) {
            return 0;
        } else if (this instanceof Flag) {
            return 1;
        } else if (this instanceof Number) {
            return 2;
        } else if (this instanceof Int32) {
            return 3;
        } else if (this instanceof Texts) {
            return 4;
        }
        return 5;
    }
}
