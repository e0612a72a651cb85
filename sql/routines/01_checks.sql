-- Checks of the game's input shared by the functions after this file.

-- Ids reach operators' terminals and every log line: bounded, and free of control characters. Runs as its
-- caller: only the functions that run as their owner call it.
CREATE OR REPLACE FUNCTION iap.check_identifier(p_function text, p_name text, p_value text) RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF check_identifier.p_value IS NULL OR check_identifier.p_value = '' THEN
        RAISE EXCEPTION '%: % must not be empty', check_identifier.p_function, check_identifier.p_name
            USING ERRCODE = '22023';
    END IF;
    IF char_length(check_identifier.p_value) > 255 THEN
        RAISE EXCEPTION '%: % is % characters long, over the limit of 255', check_identifier.p_function,
            check_identifier.p_name, char_length(check_identifier.p_value) USING ERRCODE = '22023';
    END IF;
    IF check_identifier.p_value ~ '[\u0001-\u001f\u007f-\u009f]' THEN
        RAISE EXCEPTION '%: % contains a control character', check_identifier.p_function, check_identifier.p_name
            USING ERRCODE = '22023';
    END IF;
END $$;
