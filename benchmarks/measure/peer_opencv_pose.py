"""The plain-OpenCV peer of a camera-transformation ask (issue #52): heading change between two nadir photos.

What a competent user would write instead of asking the agent: JPEGs decoded by libjpeg at a quarter of their size,
SIFT, FLANN with Lowe's ratio test, a RANSAC homography, the in-plane rotation of that homography. No metadata, no
checks, no confidence. ``benchmarks/measure/bench_speed.py`` runs it as a whole process beside ``uav-agent ask``.
Run: ``python benchmarks/measure/peer_opencv_pose.py IMAGE_A IMAGE_B`` (prints the heading change in degrees,
clockwise).
"""

import math
import sys

import cv2
import numpy as np


def main(path_a: str, path_b: str) -> None:
    a, b = (cv2.imread(p, cv2.IMREAD_REDUCED_GRAYSCALE_4) for p in (path_a, path_b))
    sift = cv2.SIFT_create(nfeatures=4000)
    ka, da = sift.detectAndCompute(a, None)
    kb, db = sift.detectAndCompute(b, None)
    knn = cv2.FlannBasedMatcher({"algorithm": 1, "trees": 4}, {"checks": 64}).knnMatch(da, db, k=2)
    good = [p[0] for p in knn if len(p) == 2 and p[0].distance < 0.8 * p[1].distance]
    pa = np.float32([ka[m.queryIdx].pt for m in good])
    pb = np.float32([kb[m.trainIdx].pt for m in good])
    H, inliers = cv2.findHomography(pa, pb, cv2.RANSAC, 3.0)
    # The scene turning counter-clockwise on screen (y down) from a to b means the camera turned clockwise.
    turn = -math.degrees(math.atan2(H[1, 0] - H[0, 1], H[0, 0] + H[1, 1]))
    print(f"{turn % 360:.1f} degrees ({int(inliers.sum())} inliers of {len(good)} matches)")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
