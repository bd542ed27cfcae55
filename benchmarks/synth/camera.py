"""Exact pinhole views of a textured ground plane.

World frame: x = east, y = north, z = up, metres. Camera frame (OpenCV): x = image right, y = image down,
z = optical axis. A camera has a position (x, y, altitude above the plane), a heading ``yaw_deg`` (clockwise
from north, the direction the top of a nadir image points to and the horizontal direction an oblique camera
looks along), a ``pitch_deg`` of the optical axis (−90 = nadir, 0 = horizon) and a ``roll_deg`` about the optical
axis (positive turns the image content counter-clockwise, i.e. the camera clockwise).
Ground texture pixel (u, v) lies at world (x0 + u·gsd, y0 − v·gsd): north up.

Written by hand because the projection of a plane is a few lines of linear algebra that no library packages
with these conventions; rendering itself is OpenCV's ``warpPerspective``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np


@dataclass(frozen=True)
class GroundTexture:
    """A north-up image of the ground with a known ground sample distance ``gsd_m`` (metres per pixel)."""

    image: np.ndarray  # (H, W, 3) uint8 RGB
    gsd_m: float
    x0: float = 0.0  # world x of the top-left pixel corner
    y0: float = 0.0  # world y of the top-left pixel corner

    @property
    def size_m(self) -> tuple[float, float]:
        """(width, height) in metres."""
        h, w = self.image.shape[:2]
        return w * self.gsd_m, h * self.gsd_m

    @property
    def centre(self) -> tuple[float, float]:
        w, h = self.size_m
        return self.x0 + w / 2, self.y0 - h / 2

    def pixel_to_world(self) -> np.ndarray:
        """3x3 matrix taking texture pixels (u, v, 1) to ground (x, y, 1)."""
        g = self.gsd_m
        return np.array([[g, 0, self.x0], [0, -g, self.y0], [0, 0, 1.0]])

    def world_to_pixel(self, xy: np.ndarray) -> np.ndarray:
        """(N, 2) ground metres → (N, 2) texture pixels."""
        xy = np.asarray(xy, float).reshape(-1, 2)
        return np.stack([(xy[:, 0] - self.x0) / self.gsd_m, (self.y0 - xy[:, 1]) / self.gsd_m], axis=1)


@dataclass(frozen=True)
class PinholeCamera:
    """A pinhole camera above the ground plane z = 0 (see the module docstring for conventions)."""

    x: float
    y: float
    altitude: float
    yaw_deg: float = 0.0
    pitch_deg: float = -90.0
    roll_deg: float = 0.0
    focal_px: float = 1000.0
    width: int = 1280
    height: int = 720

    @property
    def position(self) -> np.ndarray:
        return np.array([self.x, self.y, self.altitude], float)

    @property
    def K(self) -> np.ndarray:
        return np.array([[self.focal_px, 0, self.width / 2], [0, self.focal_px, self.height / 2], [0, 0, 1.0]])

    @property
    def R(self) -> np.ndarray:
        """World → camera rotation (rows are the camera axes expressed in world coordinates)."""
        psi, theta, phi = np.radians([self.yaw_deg, self.pitch_deg, self.roll_deg])
        forward = np.array([np.sin(psi), np.cos(psi), 0.0])
        right = np.array([np.cos(psi), -np.sin(psi), 0.0])
        z = np.cos(theta) * forward + np.array([0, 0, np.sin(theta)])
        x = right
        y = np.cross(z, x)
        xr = np.cos(phi) * x + np.sin(phi) * y
        yr = -np.sin(phi) * x + np.cos(phi) * y
        return np.stack([xr, yr, z])

    def with_(self, **changes: float) -> "PinholeCamera":
        return replace(self, **changes)

    def project(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, 3) world points → ((N, 2) pixels, (N,) depth along the optical axis in metres)."""
        p = (np.asarray(points, float).reshape(-1, 3) - self.position) @ self.R.T
        uv = p @ self.K.T
        with np.errstate(divide="ignore", invalid="ignore"):
            px = uv[:, :2] / uv[:, 2:3]
        return px, p[:, 2]

    def ground_to_image(self) -> np.ndarray:
        """3x3 homography taking ground (x, y, 1) to image pixels."""
        R = self.R
        return self.K @ np.column_stack([R[:, 0], R[:, 1], -R @ self.position])

    def image_to_ground(self, pixels: np.ndarray) -> np.ndarray:
        """(N, 2) pixels → (N, 2) ground points; NaN where the ray does not hit the ground in front."""
        px = np.asarray(pixels, float).reshape(-1, 2)
        rays = np.column_stack([px, np.ones(len(px))]) @ np.linalg.inv(self.K).T @ self.R  # world directions
        with np.errstate(divide="ignore", invalid="ignore"):
            t = -self.altitude / rays[:, 2]
        xy = self.position[:2] + t[:, None] * rays[:, :2]
        xy[~(t > 0)] = np.nan
        return xy

    def ground_mask(self) -> np.ndarray:
        """(H, W) bool: pixels whose viewing ray hits the ground (below the horizon)."""
        v, u = np.mgrid[0 : self.height, 0 : self.width]
        rays = np.stack([u + 0.5, v + 0.5, np.ones_like(u, float)], -1) @ np.linalg.inv(self.K).T @ self.R
        return rays[..., 2] < -1e-6


def relative_heading_deg(a: PinholeCamera, b: PinholeCamera) -> float:
    """Heading of b relative to a, degrees clockwise in [0, 360)."""
    return float((b.yaw_deg - a.yaw_deg) % 360.0)


def translation_in_a(a: PinholeCamera, b: PinholeCamera) -> np.ndarray:
    """b's position minus a's, expressed along a's (forward, right, up) axes in metres (forward = a's heading)."""
    psi = np.radians(a.yaw_deg)
    d = b.position - a.position
    forward = d[0] * np.sin(psi) + d[1] * np.cos(psi)
    right = d[0] * np.cos(psi) - d[1] * np.sin(psi)
    return np.array([forward, right, d[2]])


def render(texture: GroundTexture, cam: PinholeCamera, *, fill: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Render the view of ``cam``: (RGB image, bool mask of pixels that show the texture).

    Pixel centres sit where :meth:`PinholeCamera.project` and ``GroundTexture`` put them: in this module pixel i spans [i, i + 1) (centre i + 0.5, as in ``ground_mask``); OpenCV's warp samples pixel
    i at coordinate i. A plain warp would therefore shift the image by half a texture pixel and half an image pixel;
    here both shifts are compensated, so projected boxes and rendered objects agree to interpolation accuracy.
    """
    half = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1.0]])
    H = np.linalg.inv(half) @ cam.ground_to_image() @ texture.pixel_to_world() @ half
    size = (cam.width, cam.height)
    img = cv2.warpPerspective(texture.image, H, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                              borderValue=(fill, fill, fill))
    ones = np.full(texture.image.shape[:2], 255, np.uint8)
    valid = cv2.warpPerspective(ones, H, size, flags=cv2.INTER_NEAREST, borderValue=0) > 0
    valid &= cam.ground_mask()
    img[~valid] = fill
    return img, valid


render_exact = render  # the name the generator uses
