"""The concepts of the offline parser: how people ask for each quantity, relation and form, written once as
regular expressions over the normalised vocabulary of ``planners.lexicon`` (for the phenomenon, e.g. how people ask
for a distance, not for particular questions). ``planners.parse`` combines them with the referents.
"""

from __future__ import annotations

import re

UNIT_WORDS = {"m": "m", "metres": "m", "metre": "m", "kilometres": "km", "kilometre": "km", "feet": "ft", "foot": "ft",
              "yards": "yd", "miles": "mi", "centimetres": "cm", "centimetre": "cm", "millimetres": "mm",
              "millimetre": "mm", "inches": "in", "inch": "in"}
UNIT_RX = r"metres?|kilometres?|feet|foot|yards|miles|centimetres?|millimetres?|inch(?:es)?"

# --- concepts: how people ask for each quantity (patterns over normalised text) --------------------------------
C = {
    "clock": r"o'?\s?clock|\bclock\b|\bwhat hour\b|\bwhich hour\b|\bhour\b|\b(as|is|=|being) 12\b|\b12 (is|=|being)\b|\b(north|up|top) at 12\b",
    "compass": r"\bcompass\b|\bcardinal\b|\bazimuth\b|\bnorth|\bsouth|\beast(ward)?\b|\bwest(ward)?\b|true north|8-point|"
               r"eight-point|\bn, ne\b|\bnw\b|\bne\b",
    "direction": r"which way|what way|what direction|which direction|\bdirection\b|\bbearing\b|\bheading\b|"
                 r"\bfac(e|es|ing)\b|\bpoint(ing|ed|s)?\b|\boriented\b|\borientation\b|\bnose\b|\bwhere\b",
    "angle": r"how many degrees|\bdegrees\b|\bangular\b|by (what|how much|which) angle|\bangle\b|\brotat|\byaw|\bturn|"
             r"\bswung\b|\bswing|\bspin|heading (change|difference|offset)|change in (the )?(camera )?heading|"
             r"\boffset angle\b|\bhow much\b.*\b(heading|yaw)|\brelative (heading|orientation|rotation|yaw)\b",
    "same_heading": r"same (camera |drone |aircraft )?(heading|direction|orientation|way|yaw)|\bswung (a)?round\b|\bswing (a)?round\b|\brotation\b|\b(heading|direction|orientation)s?\b[a-z0-9' ]{0,40}?"
                    r"\b((is|are|was|were|stay(ed|s)?|remain(ed|s)?) )?(identical|unchanged|equal|the same|constant|steady|fixed)\b|"
                    r"\b(heading|direction|orientation)s? (is |are )?(identical|unchanged|equal|the same)\b|\bidentical (heading|direction|orientation)s?\b|"
                    r"change in (the )?(camera |drone )?(heading|direction|orientation)|change(d)? (its |the )?heading|"
                    r"changed direction|\b(heading|direction|orientation|yaw)\b[a-z0-9' ]{0,40}?\bchange(d|s)?\b|"
                    r"heading (has )?changed|heading change|\brotate(d)?\b|\bdifferent\b.*\b(heading|direction|"
                    r"orientation)s?\b|\b(heading|direction|orientation)s?\b.*\bdifferent\b|"
                    r"different heading|come round|swing around|swung around|yawed|\bturned\b|\bturn\b|\brotated\b|"
                    r"change in yaw|\byaw\b",
    "distance": r"how far|\bdistance\b|\bbaseline\b|\bseparat|\bspacing\b|\bspaced\b|\bapart\b|\bgap\b|\boffset\b|"
                r"\b(in|into) (" + UNIT_RX + r")\b|\blength\b|\bleg\b|how much ground|"
                r"how (many|much) (" + UNIT_RX + r")\b|tape measure|as the crow flies|\bhop\b|how long would|"
                r"\bdisplacement\b|\btranslat(e|ed|ion)\b|\b(in|into) m\b",
    "altitude": r"altitude|\bheight\b|how high|\belevation\b|above (the )?(ground|take-?off|launch|sea)|how far above|"
                r"how far (off|over) the (ground|deck|surface|terrain)|"
                r"how far up|\bagl\b|above ground level|"
                r"\bup\b.*\b(" + UNIT_RX + r")|(" + UNIT_RX + r")\s+up\b|height over|\bflying height\b|"
                r"how (elevated|raised|lofty)\b",
    "footprint": r"footprint|\bhow far across\b|\b(left )?edge to (the )?(right )?edge\b|\bsquare (" + UNIT_RX + r")\b|\bhectares?\b|\bacres?\b|ground (dimensions|coverage|area)|\bcoverage\b|how (big|large)|area on the ground|"
                 r"width (by|x|and) height|wide and (how )?tall|\bw x h\b|width x height|side[- ]to[- ]side|"
                 r"top[- ]to[- ]bottom|how (wide|much|big|large) (an )?(area|patch|stretch)|rectangle (it|this|the photo|the image) covers|size (of the )?(patch|area)|size patch|patch of (ground|terrain)|"
                 r"\bspan\b|\bspans\b|metres across|how many (" + UNIT_RX + r") (wide|across|long|deep)\b|"
                 r"\b(width|wide|size) (of )?(the )?(field of view|view|scene) on the ground\b|\bdimensions\b|"
                 r"\bextent\b|wide and (how )?(long|tall|high)|how much of the (ground|area|land|terrain)\b|"
                 r"\b(width|length) (by|x|and|times) (length|width|height)\b|"
                 r"imaged area|area (imaged|covered|captured|shown)|(covered|captured|imaged) area|"
                 r"\b(width|length|size|extent) of (the )?(ground|terrain|land|area) (imaged|covered|captured|seen|shown)\b|"
                 r"how much (ground|area|land|terrain)\b|\b(ground|area|land|terrain)\b.*\bcover(s|ed)?\b|"
                 r"\bcover(s|ed)? (on the ground|of ground)|\bcover(s|ed)?\b.*\b(on|of) (the )?ground\b|\b(swath|strip|stretch|patch|piece|tract) of (ground|land|terrain)\b|"
                 r"\bswath\b",
    "gsd": r"\bgsd\b|ground (sample|sampling) distance|ground resolution|spatial resolution|"
           r"(" + UNIT_RX + r"|cm|mm|m)[\s-]*(/|per)[\s-]*(px|pixel)|per (pixel|px)\b|(one|a|1|single|each) (image |photo )?(pixel|px)\b|"
           r"pixel size|\bpixels?\b.*\bhow (many|much) (cm|mm|" + UNIT_RX + r")\b|\bhow (many|much) (cm|mm|" + UNIT_RX
           + r")\b.*\bpixels?\b|"
           r"\bresolution\b|pixel (spacing|footprint|pitch)",
    "count": r"how many|\bcount\b|number of|\btotal (number )?of\b|\btally\b|head ?count|\bquantify\b|\benumerate\b|\bany (people|persons|cars|vehicles|humans)\b",
    "order": r"closest|nearest|farthest|furthest|most distant|shortest|least distant|\bfar(thest)? (left|right)\b|"
             r"\b(which|what)\b.*\b(closer|nearer|farther|further)\b|"
             r"\b(rank|sort|order)\b.*\b(distance|far)",
    "overlap": r"overlap|stitch|covers? (the )?most|most of (the )?same|sees the most|same ground|best match|"
               r"biggest part of the same|largest part of the same|\b(largest|biggest|greatest) (part|portion|share|fraction) of\b|same (area|scene|location|place)|in common|"
               r"shares? (the )?most|shared area|most (area|ground) (in common|with)|"
               r"\bshar(e|es|ing)\b.*\b(most|largest|biggest|greatest)\b|\b(most|largest|biggest|greatest)\b.*"
               r"\b(shared|in common)\b",
    # a drawn rectangle or square (not a square metre) marks the spot too
    "transfer": r"\b(boxed|outlined|marked|highlighted|circled|framed)\b|\bcorresponds? to\b|\bred box\b|\bthe box\b|"
                r"\b(rectangle|square)\b(?! ?(met|kilomet|km|feet|foot|ft|mile|yard|pixel|px))|same spot|same place|"
                r"same location|same feature|\bfeature\b|\bpatch\b|same ground|\bshows? (what|the same)\b|"
                r"\b(is|as|to) which (region|box|label|mark|id|number)\b|\bmarks? (a|the|one) (place|spot|location|point|feature)\b|"
                r"\b(which|what) (id|number|label)\b.*\b(second|other|latter)\b|\b(which|what) (id|number|label)\b.*\b(photo|image|picture|view|frame) (2|b)\b|"
                r"\bwhich (region|box|label|mark|id|number) (is it|in the (second|other|next|later))\b",
    "motion": r"\bmoving\b|\bmotion\b|\bmove(d|s|ment)?\b|\btravel|\bflying\b|\bfl(y|ew|own)\b|flight (line|path|direction)|\btrack\b|"
              r"\bgoing\b|\bheaded\b|\bmoved\b|ground slide|\bdrift|\bmanoeuv|\bmaneuv|\bpann(ing|ed)\b|\bstationary\b|\bshift(s|ed)?\b|\b(forwards?|backwards?|sideways|strafe[ds]?)\b",
    "quality": r"quality|\bblur|focus|\bsharp|\bnois|grain|underexpos|overexpos|blown out|too (dark|bright|dim)|"
               r"\bdim\b|\bdark\b|\bhaz[ey]|\bfog|\bmist|\bexposure\b|(look|looks) (so )?bad|what'?s wrong|"
               r"\bproblem\b|\bissue\b|quality check|\bbright\b|low[- ]light|\blighting\b|degrad|good enough|"
               r"\busable\b|\bcontrast\b|washed[- ]out|\bfaded\b|\bexposed\b|\bdefects?\b|\bflaws?\b|\bart[ei]facts?\b|\bsmear|\bstreak|\bjitter|\bghosting\b|good to go|\bcrisp|\bshak(e|y|ing)\b|"
               r"\bre-?(shoot|shot|fly|take)\b|"
               r"\b(good|fit|suitable|ok|okay|usable) (enough )?for (photogrammetry|mapping|surveys?|stitching|processing|"
               r"inspection|orthomosaics?)\b",
    "tilt": r"\bnadir\b|straight[- ]down|\bperspective (view|shot|photo|image|picture)\b|\b(top|plan) view\b|"
            r"\borthogonal\b|\boblique(ly)?\b|\btilt|\bangled\b|off-nadir|\bvertical(ly)?\b|top[- ]?down|"
            r"(looking|pointing|pointed|facing|aimed) (straight |vertically )?(down(ward)?|at the (ground|floor))|at -?90|\bhorizon\b|"
            r"at an angle|\bpitch(ed)?\b|\boverhead (shot|view|photo|image|picture)|\bslant(ed|ing)?\b|\bskew(ed)?\b|"
            r"perpendicular to the (ground|surface|terrain)|\bbird'?s[- ]eye\b|\blooking across\b|"
            r"\b(from|taken) (directly |straight )?(above|overhead)\b|\b(directly|straight) (above|overhead)\b|"
            r"\babove directly\b|\borthographic\b|\bgimbal (angle|pitch|tilt)\b|\bcamera (angle|pitch|tilt)\b|\bfrom (the |a )?side\b|\bside[- ](on|view)\b|\bdepression (angle)?\b|\blook-?down angle\b|"
            r"\b(straight|directly|vertically) (below|beneath|under)\b",
    "semantic": r"\bidentify\b|\bdescribe\b|what kind of|land use|\bhealthy\b|\bcrop\b|colou?r|used for|"
                r"what (is|'s) in\b|\bwhat (object|thing|building|vehicle)\b|is there (a|an|any)\b|"
                r"what is the\b(?! (nearest|closest|farthest|furthest|most distant)\b)(?! (id|number|label) of the\b)|"
                r"what are the\b|\bwhat (is|are) (growing|parked)",
    "side": r"\b(which|what) side\b|\b(to the |on the )?(left|right)\b|\babove\b|\bbelow\b|\bahead of\b|\bbehind\b|\bin front of\b",
    "perspective": r"\bif (you|i) (are|were|stood|stand)\b|\b(imagine|suppose|pretend) (you|i)\b|"
                   r"\b(standing|stand) at the\b|\bfrom you\b|\bto you\b|\byour (position|view|viewpoint)\b",
    "object_size": r"\b(height|width|length|size) of (the|a|an) (?!drone|aircraft|camera|uav|flight|image|photo|"
                   r"picture|frame|ground|patch|area|scene|lens|sensor|pixel|strip|swath|stretch|footprint|view)|"
                   r"\bhow (wide|tall|long|big) is (the|a|an|one|each) (?!(single |whole |entire )?(?:drone|aircraft|camera|uav|image|photo|picture|"
                   r"frame|ground|patch|area|scene|pixel|strip|swath|stretch|footprint|view|terrain|land|landscape|site))",
    "correspondence": r"\b(region|box|id) pairs?\b|\bshared regions?\b|\bpairs? (of|up)\b|\bcorrespond(ing|ence)s?\b|"
                      r"\b(list|give|name) (the |all )?pairs\b|\bcorrespond to (the |other )?regions\b|"
                      r"\bregions? (that )?(appear|are seen|show up) in both\b|\bcommon to both\b|\bmatch up\b|"
                      r"\b(match|pair|link|associate)( up)? (the |all )?([a-z]+ )?(regions|boxes|labels|marks|ids)\b|"
                      r"\bsame (object|thing|item) as (each|every) (box|region|label|mark)\b|"
                      r"\b(regions|boxes|labels|marks|ids)\b.*\bcorrespond(s)?\b.*\b(regions|boxes|labels|marks|ids)\b|"
                      r"\b(each|every|all) (the )?([a-z]+ )?(box|boxes|region|regions|label|labels|mark|marks)\b.*"
                      r"\b(matching|corresponding|counterpart|same object)",
    "occlusion": r"occlu|\bhides?\b|\bhidden\b|\bblock(s|ed|ing)?\b|obstruct|"
                 r"\b(regions?|boxes|labels|marks|objects)\b.*\b(not (show|shown|visible|seen|appear)|missing|absent|invisible|"
                 r"out of (view|frame|sight))",
    "camera_info": r"focal length|\b(camera|drone|aircraft|uav|sensor) (model|make|maker|manufacturer|brand)\b|"
                   r"\bmake and model\b|\b(which|what) (company|manufacturer|maker|brand|vendor)\b|\b(what|which) (time|date|day)\b.*\b(taken|captured|shot|recorded)\b|"
                   r"which camera|\bexif\b|\bmetadata\b|\biso\b|\bshutter\b|\baperture\b|\bf-?(number|stop)\b|\bexposure time\b|"
                   r"\bwhite balance\b|\bcoordinates (where|of (this|the) (photo|image|picture|shot|frame|camera|drone))\b|"
                   r"\bgps\b|\b(which|what) lens\b|\blens (model|type|make)\b|\b(which|what) ([a-z]+ )?(sensor|camera|drone|aircraft|uav|platform|make)\b (model )?"
                   r"(was used|took|shot|captured|recorded|is it|was it)\b|\bwhen was (this|the) (photo|image|picture|"
                   r"shot|frame)\b|\btimestamp\b|\bdate and time\b|\bwhere was (this|the) (photo|image|picture|shot|"
                   r"frame) (taken|shot|captured)\b|\blatitude\b|\blongitude\b|\blat ?/ ?lon|"
                   r"\b(gps|geographic|world|map) (coordinates|position|location)\b",
    "yes_no_start": r"(^|[,:;]\s*)(is|are|was|were|did|does|do|has|have|had|can|could|would|will|should)\b|"
                    r"^(same|different|both)\b[^?]*\?\s*$|"
                    r"^any\b|\b(yes or no|yes/no|y/n)\b|\b(ok|okay|fine|acceptable|alright)\s*\?\s*$|\?\s*is it\b|\bis it\b\W*$|\bor not\b|^too\b[^?]*\?\s*$",
    "metric_distance": r"how far (did|has|was) (it|the drone|the camera|the aircraft|we|they) (move|travel|fl[yo]w?)|"
                       r"\bdistance\b|\bbaseline\b|\bspacing\b|\bapart\b|how (many|much) (" + UNIT_RX + r")\b|"
                       r"\b(in|into) (" + UNIT_RX + r")\b|\bdisplacement\b|\btranslation\b|\btransformation\b|"
                       r"\b(degrees|angle) and (" + UNIT_RX + r")\b|\b(" + UNIT_RX + r") and (degrees|angle)\b|"
                       r"\bmov(e|ed|ing) and (rotat|turn)|\b(rotat|turn)(e|ed|ing)? and mov",
    "direction_wh": r"which way|what way|what direction|which direction|what bearing|which bearing|\bbearing\b|"
                    r"\bheading\b|\bfacing\b|\bface\b|compass|\bazimuth\b|where .*\b(point|face|look)",
    "how_much": r"how much|how many|by what|what angle|\bangle\b|signed|how far",
}
_RX = {k: re.compile(v) for k, v in C.items()}
PERSON = (r"people|persons?|pedestrians?|humans?|men|women|walkers?|heads?|workers?|visitors?|tourists?|spectators?|"
          r"hikers?|swimmers?|runners?|players?|crowds? members?|passers-?by|staff|crew")
NON_COUNT = re.compile(r"how (many|much) (square )?(" + UNIT_RX + r"|degrees|cm|mm|hours?|times|percent|pixels?)\b")


def has(concept: str, text: str) -> bool:
    return bool(_RX[concept].search(text))
