#include "model/derived.h"

#include <math.h>

size_t
dci_derived_arity(enum dci_unit derivation)
{
	switch (derivation) {
	case DCI_UNIT_DERIVED_SUM2:
	case DCI_UNIT_DERIVED_DIFFERENCE:
	case DCI_UNIT_DERIVED_AVERAGE:
	case DCI_UNIT_DERIVED_PERCENT:
	case DCI_UNIT_DERIVED_PRODUCT:
		return 2;
	case DCI_UNIT_DERIVED_SUM3:
	case DCI_UNIT_DERIVED_VARIANCE:
		return 3;
	default:
		return 0;
	}
}

bool
dci_derived_is_ratio(enum dci_unit derivation)
{
	return derivation == DCI_UNIT_DERIVED_AVERAGE ||
	       derivation == DCI_UNIT_DERIVED_PERCENT ||
	       derivation == DCI_UNIT_DERIVED_VARIANCE;
}

/* Integer formulas over unsigned values: exact, or no value. */
static bool
compute_unsigned(enum dci_unit derivation, const uint64_t *values, bool wraps,
    uint64_t *result)
{
	bool overflow = false;

	switch (derivation) {
	case DCI_UNIT_DERIVED_SUM2:
		overflow = __builtin_add_overflow(values[0], values[1], result);
		break;
	case DCI_UNIT_DERIVED_SUM3:
		overflow = __builtin_add_overflow(values[0], values[1], result);
		overflow |= __builtin_add_overflow(*result, values[2], result);
		break;
	case DCI_UNIT_DERIVED_DIFFERENCE:
		if (values[0] < values[1])
			return false;
		*result = values[0] - values[1];
		return true;
	case DCI_UNIT_DERIVED_PRODUCT:
		return !__builtin_mul_overflow(values[0], values[1], result);
	default:
		return false;
	}
	/* The wrapped sum is what the counters' sum reads modulo 2^64. */
	return !overflow || wraps;
}

/* Integer formulas with a signed argument, in int64_t: exact, or no value.
 * An unsigned argument above INT64_MAX overflows. */
static bool
compute_signed(enum dci_unit derivation,
    const struct dci_derived_argument *arguments, int64_t *result)
{
	int64_t values[DCI_DERIVED_ARGUMENTS_MAX] = {0, 0, 0};
	bool overflow = false;

	for (size_t i = 0; i < dci_derived_arity(derivation); i++) {
		if (arguments[i].is_signed)
			values[i] = arguments[i].signed_number;
		else if (arguments[i].number > INT64_MAX)
			return false;
		else
			values[i] = (int64_t)arguments[i].number;
	}
	switch (derivation) {
	case DCI_UNIT_DERIVED_SUM2:
		overflow = __builtin_add_overflow(values[0], values[1], result);
		break;
	case DCI_UNIT_DERIVED_SUM3:
		overflow = __builtin_add_overflow(values[0], values[1], result);
		overflow |= __builtin_add_overflow(*result, values[2], result);
		break;
	case DCI_UNIT_DERIVED_DIFFERENCE:
		overflow = __builtin_sub_overflow(values[0], values[1], result);
		break;
	case DCI_UNIT_DERIVED_PRODUCT:
		overflow = __builtin_mul_overflow(values[0], values[1], result);
		break;
	default:
		return false;
	}
	return !overflow;
}

/* Ratios in long double, which holds every 64-bit integer exactly where it
 * has a 64-bit mantissa (x86) and to 53 bits elsewhere. */
static long double
argument_value(const struct dci_derived_argument *argument)
{
	return argument->is_signed ? (long double)argument->signed_number
	                           : (long double)argument->number;
}

static bool
compute_ratio(enum dci_unit derivation,
    const struct dci_derived_argument *arguments, int64_t *hundredths)
{
	long double first = argument_value(&arguments[0]);
	long double second = argument_value(&arguments[1]);
	long double value, mean;

	switch (derivation) {
	case DCI_UNIT_DERIVED_AVERAGE:
		if (second == 0)
			return false;
		value = first / second;
		break;
	case DCI_UNIT_DERIVED_PERCENT:
		if (first + second == 0)
			return false;
		value = 100 * first / (first + second);
		break;
	case DCI_UNIT_DERIVED_VARIANCE:
		/* arg1 a count, arg2 a sum, arg3 a sum of squares: the
		 * population variance E[x^2] - E[x]^2. */
		if (first <= 0)
			return false;
		mean = second / first;
		value = argument_value(&arguments[2]) / first - mean * mean;
		if (value < 0) {
			/* Rounding of a variance of 0 may leave a tiny
			 * negative; anything larger means the arguments do
			 * not describe one sample. */
			if (value < -1e-9L * (mean * mean + 1))
				return false;
			value = 0;
		}
		break;
	default:
		return false;
	}
	value = roundl(value * 100);
	if (!isfinite(value) || value > (long double)INT64_MAX / 2 ||
	    value < (long double)INT64_MIN / 2)
		return false;
	*hundredths = (int64_t)value;
	return true;
}

bool
dci_derived_compute(enum dci_unit derivation,
    const struct dci_derived_argument *arguments, bool wraps,
    struct dci_derived_result *result)
{
	size_t arity = dci_derived_arity(derivation);
	bool any_signed = false;

	*result = (struct dci_derived_result){0};
	if (arity == 0)
		return false;
	if (dci_derived_is_ratio(derivation)) {
		result->is_signed = true;
		return compute_ratio(
		    derivation, arguments, &result->signed_number);
	}
	for (size_t i = 0; i < arity; i++)
		any_signed |= arguments[i].is_signed;
	if (any_signed) {
		result->is_signed = true;
		return compute_signed(
		    derivation, arguments, &result->signed_number);
	}
	{
		uint64_t values[DCI_DERIVED_ARGUMENTS_MAX] = {0, 0, 0};
		for (size_t i = 0; i < arity; i++)
			values[i] = arguments[i].number;
		return compute_unsigned(
		    derivation, values, wraps, &result->number);
	}
}
